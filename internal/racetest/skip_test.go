package racetest

import "testing"

// recorder is a testing.TB that records whether Skip skipped it, so the
// test sees the decision instead of being skipped itself.
type recorder struct {
	testing.TB
	skipped string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = format
}

func TestSkipFollowsTheBuild(t *testing.T) {
	r := &recorder{TB: t}
	Skip(r, "a parser's bound")
	if got := r.skipped != ""; got != Enabled {
		t.Errorf("Skip skipped: %v, built with -race: %v", got, Enabled)
	}
}
