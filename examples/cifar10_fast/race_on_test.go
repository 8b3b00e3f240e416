//go:build race

package main

// raceEnabled: the test binary runs under the race detector, where the
// short training run (one goroutine's recipe, ten times slower there)
// skips; the replicas' concurrent code is TestMirroredTwoReplicasEqualOne's.
const raceEnabled = true
