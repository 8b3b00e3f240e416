//go:build race

package kernels

// raceEnabled: built with -race, whose instrumentation makes the Go
// kernels and the float64 references of the sweeps 10-20x slower.
const raceEnabled = true
