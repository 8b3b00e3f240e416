package distribute

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func TestAllReduceDeterministic(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7} {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		a := newAllReducer(n)
		sizes := []int{1, 5, 1000, 3}
		in := make([][][]float32, n)
		for rep := range in {
			for _, s := range sizes {
				b := make([]float32, s)
				for i := range b {
					b[i] = float32(r.NormFloat64()) * 1e3
				}
				in[rep] = append(in[rep], b)
			}
		}
		// The reference: sums in replica order.
		want := make([][]float32, len(sizes))
		for i, s := range sizes {
			want[i] = make([]float32, s)
			for j := range want[i] {
				for rep := 0; rep < n; rep++ {
					want[i][j] += in[rep][i][j]
				}
			}
		}
		for round := 0; round < 3; round++ {
			bufs := make([][][]float32, n)
			for rep := range bufs {
				for _, b := range in[rep] {
					bufs[rep] = append(bufs[rep], append([]float32(nil), b...))
				}
			}
			var wg sync.WaitGroup
			for rep := 0; rep < n; rep++ {
				wg.Add(1)
				go func(rep int) {
					defer wg.Done()
					if err := a.allReduceSum(rep, bufs[rep]); err != nil {
						t.Error(err)
					}
				}(rep)
			}
			wg.Wait()
			for rep := 0; rep < n; rep++ {
				for i := range sizes {
					for j, v := range bufs[rep][i] {
						if math.Float32bits(v) != math.Float32bits(want[i][j]) {
							t.Fatalf("n=%d round %d replica %d buf %d[%d] = %v, want %v", n, round, rep, i, j, v, want[i][j])
						}
					}
				}
			}
		}
	}
}

func TestAllReduceAbortAndMismatch(t *testing.T) {
	a := newAllReducer(3)
	done := make(chan error, 2)
	for rep := 1; rep < 3; rep++ {
		go func(rep int) { done <- a.allReduceSum(rep, [][]float32{{1}}) }(rep)
	}
	a.abort(errAborted)
	for i := 0; i < 2; i++ {
		if err := <-done; !errors.Is(err, errAborted) {
			t.Errorf("waiting replica got %v, want abort", err)
		}
	}
	a.reset()
	// Mismatched sizes fail on every replica instead of hanging.
	errs := make(chan error, 3)
	for rep := 0; rep < 3; rep++ {
		go func(rep int) { errs <- a.allReduceSum(rep, [][]float32{make([]float32, 1+rep)}) }(rep)
	}
	for i := 0; i < 3; i++ {
		if err := <-errs; err == nil {
			t.Error("mismatched sizes: no error")
		}
	}
}

// TestReduceRefusesUnknownOp: a ReduceOp made by a conversion (ReduceOp(99))
// is an error naming it, on both strategies, not a silent sum.
func TestReduceRefusesUnknownOp(t *testing.T) {
	s, err := NewMirroredStrategy("/cpu:0")
	if err != nil {
		t.Fatal(err)
	}
	v := PerReplica{{Shape: []int{1}, Data: []float32{1}}}
	for _, op := range []ReduceOp{-1, 2, 99} {
		if _, err := s.Reduce(op, v, AxisNone); err == nil || !strings.Contains(err.Error(), "unknown ReduceOp") {
			t.Errorf("MirroredStrategy.Reduce(ReduceOp(%d)): err = %v, want unknown ReduceOp", int(op), err)
		}
		if _, err := (&MultiWorkerMirroredStrategy{}).Reduce(op, v, AxisNone); err == nil || !strings.Contains(err.Error(), "unknown ReduceOp") {
			t.Errorf("MultiWorkerMirroredStrategy.Reduce(ReduceOp(%d)): err = %v, want unknown ReduceOp", int(op), err)
		}
	}
	for _, op := range []ReduceOp{Sum, Mean} {
		if _, err := s.Reduce(op, v, AxisNone); err != nil {
			t.Errorf("Reduce(%d): %v", int(op), err)
		}
	}
}

// TestSetLogicalCPUsBound: a million logical CPUs (a Fit that would hang)
// is an error; the bound itself is accepted.
func TestSetLogicalCPUsBound(t *testing.T) {
	defer SetLogicalCPUs(len(ListLogicalDevices("CPU")))
	if err := SetLogicalCPUs(1_000_000); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("SetLogicalCPUs(1e6): err = %v", err)
	}
	if err := SetLogicalCPUs(MaxLogicalDevices); err != nil {
		t.Errorf("SetLogicalCPUs(%d): %v", MaxLogicalDevices, err)
	}
}
