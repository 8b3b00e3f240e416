package optimizers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// overlapState is the apply_gradients hook's overlapped all-reduce for one
// trace (one replica): under a strategy whose replica context overlaps
// (ops.OverlapContext), each gradient is copied into the hook's scratch
// and handed to the all-reduce as soon as the backward pass has computed
// it, and Run waits for the sums. The sums are bitwise those of
// AllReduceSum on the same scratch.
type overlapState struct {
	name    string
	scratch [][]float32
	pending ops.OverlappedAllReduce
	have    []bool // scratch[i] holds this step's gradient and was reported
}

// ready is the hook's Ready: i = -1 begins the step's group.
func (o *overlapState) ready(rc ops.ReplicaContext, i int, val ops.Value) error {
	oc, ok := rc.(ops.OverlapContext)
	if !ok {
		return nil
	}
	if i < 0 {
		o.pending = oc.BeginAllReduce(o.scratch)
		if o.have == nil {
			o.have = make([]bool, len(o.scratch))
		}
		clear(o.have)
		return nil
	}
	if o.pending == nil || i >= len(o.scratch) || o.have[i] {
		return nil
	}
	if len(val.Data) < len(o.scratch[i]) {
		return fmt.Errorf("optimizers: %s: gradient %d has %d values, want %d", o.name, i, len(val.Data), len(o.scratch[i]))
	}
	copy(o.scratch[i], val.Data)
	o.have[i] = true
	return o.pending.Ready(i)
}

// finish completes the step's all-reduce in Run: the gradients not yet
// reported are copied and the sums awaited. It reports false when the
// context does not overlap (the caller all-reduces as before).
func (o *overlapState) finish(rc ops.ReplicaContext, vals []ops.Value) (bool, error) {
	h := o.pending
	o.pending = nil
	if h == nil {
		// No Ready calls this step (an executor that reports none): begin
		// now, so every replica's groups still pair up.
		oc, ok := rc.(ops.OverlapContext)
		if !ok {
			return false, nil
		}
		if h = oc.BeginAllReduce(o.scratch); h == nil {
			return false, nil
		}
		if o.have == nil {
			o.have = make([]bool, len(o.scratch))
		}
		clear(o.have)
	}
	for i, val := range vals {
		if !o.have[i] {
			copy(o.scratch[i], val.Data)
		}
	}
	clear(o.have)
	return true, h.Wait()
}

// overlapZeros is the Empty hook's all-reduce of zeros under an
// overlapping context; false when the context does not overlap.
func overlapZeros(rc ops.ReplicaContext, zeros [][]float32) (bool, error) {
	oc, ok := rc.(ops.OverlapContext)
	if !ok {
		return false, nil
	}
	h := oc.BeginAllReduce(zeros)
	if h == nil {
		return false, nil
	}
	return true, h.Wait()
}
