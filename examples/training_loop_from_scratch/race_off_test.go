//go:build !race

package main

// raceEnabled: built with -race, whose shadow memory and instrumentation
// change the memory figures the tests bound.
const raceEnabled = false
