package engine_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestFunctionTracesOncePerShape: like tf.function, a step is traced once
// per input signature and replayed after.
func TestFunctionTracesOncePerShape(t *testing.T) {
	w := ops.NewVariable("w", ops.Shape{3}, []float32{1, 2, 3}, true)
	f := &engine.Function{Name: "scale", Fn: func(tr *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
		return []ops.Tensor{ops.Mul(in[0], tr.Read(w))}, nil
	}}
	call := func(rows int) []float32 {
		data := make([]float32, rows*3)
		for i := range data {
			data[i] = float32(i)
		}
		out, err := f.Call(nil, []ops.Value{{Shape: ops.Shape{rows, 3}, Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		return out[0].Data
	}
	if got := call(2); got[4] != 4*2 || got[5] != 5*3 {
		t.Errorf("output %v", got)
	}
	call(2)
	if f.Traces != 1 {
		t.Errorf("%d traces after two calls of one shape, want 1", f.Traces)
	}
	call(5)
	if f.Traces != 2 {
		t.Errorf("%d traces after a new shape, want 2", f.Traces)
	}
	// The variable's current value is read at each replay, not baked in.
	w.Assign([]float32{10, 10, 10})
	if got := call(2); got[1] != 10 {
		t.Errorf("after Assign, output %v", got)
	}
}

func TestProgramErrors(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Input("x", ops.Shape{2, 2})
	p, err := engine.Compile(tr, []ops.Tensor{ops.Relu(x)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(nil, []ops.Value{{Shape: ops.Shape{3, 2}, Data: make([]float32, 6)}}); err == nil || !strings.Contains(err.Error(), "traced with (2, 2)") {
		t.Errorf("wrong input shape: %v", err)
	}
	if _, err := p.Run(nil, nil); err == nil {
		t.Error("missing input: no error")
	}
	// A variable without a copy for replica 1 (made outside a scope).
	v := ops.NewVariable("v", ops.Shape{1}, []float32{1}, true)
	tr2 := ops.NewTrace(false, 1, 1)
	p2, err := engine.Compile(tr2, []ops.Tensor{ops.Neg(tr2.Read(v))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Run(replica1{}, nil); err == nil || !strings.Contains(err.Error(), "outside the strategy's scope") {
		t.Errorf("unmirrored variable on replica 1: %v", err)
	}
	// A kernel failing at run time comes back as an error naming the op.
	lbl := tr.Constant(ops.Shape{2}, []float32{0, 7})
	xe := ops.SparseSoftmaxCrossEntropyWithLogits(lbl, x)
	p3, err := engine.Compile(tr, []ops.Tensor{xe})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p3.Run(nil, []ops.Value{{Shape: ops.Shape{2, 2}, Data: make([]float32, 4)}}); err == nil || !strings.Contains(err.Error(), "label 7") {
		t.Errorf("bad label: %v", err)
	}
}

type replica1 struct{ engine.Single }

func (replica1) ReplicaID() int   { return 1 }
func (replica1) NumReplicas() int { return 2 }
