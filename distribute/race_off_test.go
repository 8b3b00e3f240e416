//go:build !race

package distribute_test

// raceEnabled: the test binary runs under the race detector (go test -race),
// where the largest models' equivalence tests skip.
const raceEnabled = false
