//go:build !race

package kernels

// raceEnabled: built with -race (race_on_test.go).
const raceEnabled = false
