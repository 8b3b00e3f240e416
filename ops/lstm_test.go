package ops_test

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// LSTMSequence's hand-written backward pass (BPTT) against central
// differences, for every input (xp, rk, h0, c0), with and without a
// timestep mask, on the c and h it returns.
func TestLSTMSequenceGradients(t *testing.T) {
	const b, steps, u = 2, 4, 3
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	shapes := []ops.Shape{s(b, steps, 4*u), s(u, 4*u), s(b, u), s(b, u)}
	for _, tc := range []struct {
		name string
		mask []float32
	}{
		{"LSTMSequence", []float32{1, 1, 1, 1, 1, 1, 1, 1}},
		{"LSTMSequenceMasked", []float32{1, 0, 1, 1, 0, 1, 1, 0}},
	} {
		checkGrad(t, gradCase{name: tc.name, shapes: shapes, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			p := ops.LSTMSequence(x[0], x[1], x[2], x[3], tr.Constant(s(b, steps), tc.mask))
			return ops.Slice(p, []int{0, 0, 4 * u}, []int{b, steps, 2 * u})
		}})
	}
}

// Misuse is an *ops.Error naming the op and the shapes.
func TestLSTMSequenceShapes(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	in := func(d ...int) ops.Tensor { return tr.Input("x", ops.Shape(d)) }
	defer func() {
		e, ok := recover().(*ops.Error)
		if !ok || e.Op != "LSTMSequence" {
			t.Fatalf("recovered %v, want an *ops.Error of LSTMSequence", e)
		}
	}()
	ops.LSTMSequence(in(2, 3, 8), in(2, 8), in(2, 2), in(2, 3), in(2, 3))
}
