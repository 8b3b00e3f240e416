package racetest_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
)

// A test of a single-goroutine parser's memory bound skips under -race.
func ExampleSkip() {
	_ = func(t *testing.T) {
		racetest.Skip(t, "the parser runs on one goroutine")
		// ... the bounded-allocation check ...
	}
}
