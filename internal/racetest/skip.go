package racetest

import "testing"

// Skip skips t when the binary is built with -race. why says what the
// test checks that runs on one goroutine (so the race detector has nothing
// to find there); the plain run of the same test still checks it.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skipf("under -race: %s; go test without -race checks it", why)
	}
}
