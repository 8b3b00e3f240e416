package main

import (
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
)

func TestProfileLine(t *testing.T) {
	for _, c := range []struct {
		st    distribute.CommunicationStats
		took  time.Duration
		steps int
		want  string
	}{
		{distribute.CommunicationStats{Reduce: 200 * time.Millisecond, Exposed: 50 * time.Millisecond, Overlapped: true}, time.Second, 10,
			"profile: 100.0 ms per step; gradient all-reduce 20.0 ms per step overlapped with the backward pass, 5.0 ms of it not hidden: communication 5.0% of a step"},
		{distribute.CommunicationStats{Reduce: 200 * time.Millisecond, Exposed: 250 * time.Millisecond}, time.Second, 10,
			"profile: 100.0 ms per step; gradient all-reduce 20.0 ms per step after the backward pass, 25.0 ms of it not hidden: communication 25.0% of a step"},
		{distribute.CommunicationStats{}, time.Second, 4, "profile: 250.0 ms per step; no gradient all-reduce (one replica in the job)"},
		{distribute.CommunicationStats{}, time.Second, 0, "profile: no steps"},
	} {
		if got := profileLine(c.st, c.took, c.steps); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
