package distribute_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// TensorFlow 2.0's experimental_run_v2 ports: it is Run.
func TestExperimentalRunV2IsRun(t *testing.T) {
	s, err := distribute.NewMirroredStrategy(devices(1)...)
	if err != nil {
		t.Fatal(err)
	}
	_, e1 := s.Run(func(int) {}, nil)
	_, e2 := s.ExperimentalRunV2(func(int) {}, nil)
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() || !strings.Contains(e2.Error(), "func(int)") {
		t.Errorf("Run: %v; ExperimentalRunV2: %v", e1, e2)
	}
}

// strategy.reduce of a plain float follows TensorFlow's
// reduce_non_distributed_value.
func TestReduceValue(t *testing.T) {
	one, err := distribute.NewMirroredStrategy(devices(1)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	two, err := distribute.NewMirroredStrategy(devices(2)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    *distribute.MirroredStrategy
		op   distribute.ReduceOp
		v    float64
		want float64
		ok   bool
	}{
		{one, distribute.Sum, 3, 3, true},
		{one, distribute.Mean, 3, 3, true},
		{two, distribute.Mean, 3, 3, true},
		{two, distribute.Sum, 0, 0, true},
		{two, distribute.Sum, 3, 0, false},
		{one, distribute.ReduceOp(99), 3, 0, false},
	} {
		got, err := c.s.ReduceValue(c.op, c.v)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%d replicas, op %d, %v: %v, %v", c.s.NumReplicasInSync(), c.op, c.v, got, err)
		}
	}
}
