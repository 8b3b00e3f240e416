package distribute_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/ops"
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

// The seeds' TF 2.0 loop, strategy.experimental_run_v2(step, args=(batch,))
// on 2 replicas, gives each replica's output as Run does, and the
// single-worker strategy's experimental_barrier returns.
func TestExperimentalRunV2Runs(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMirroredStrategy(devices(2)...)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := images(8, 2, 2, 3)
	ds, err := datasets.FromTensorSlices(x)
	if err != nil {
		t.Fatal(err)
	}
	step := func(in []ops.Tensor) (ops.Tensor, error) { return ops.Mean(in[0], false), nil }
	var runs [][]float32
	for _, run := range []func(any, *distribute.DistributedValues) ([]distribute.PerReplica, error){s.Run, s.ExperimentalRunV2} {
		for batch := range s.ExperimentalDistributeDataset(ds.Batch(8)).All(context.Background()) {
			out, err := run(step, batch)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || len(out[0]) != 2 {
				t.Fatalf("outputs %v, want one per replica of 2", out)
			}
			runs = append(runs, []float32{out[0][0].Data[0], out[0][1].Data[0]})
		}
	}
	if len(runs) != 2 || !slices.Equal(runs[0], runs[1]) || runs[0][0] == runs[0][1] {
		t.Errorf("Run %v, ExperimentalRunV2 %v: want the same two replicas' means", runs[0], runs[1:])
	}
	mw, err := distribute.NewMultiWorkerMirroredStrategy()
	if err != nil {
		t.Fatal(err)
	}
	if err := mw.ExperimentalBarrier(); err != nil {
		t.Errorf("ExperimentalBarrier of one worker: %v", err)
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
