package ops_test

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// GRUSequence's hand-written backward pass against central differences,
// for every input (xp, rk, rb, h0), with and without a timestep mask.
func TestGRUSequenceGradients(t *testing.T) {
	const b, steps, u = 2, 4, 3
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	shapes := []ops.Shape{s(b, steps, 3*u), s(u, 3*u), s(3 * u), s(b, u)}
	for _, tc := range []struct {
		name string
		mask []float32
	}{
		{"GRUSequence", []float32{1, 1, 1, 1, 1, 1, 1, 1}},
		{"GRUSequenceMasked", []float32{1, 0, 1, 1, 0, 1, 1, 0}},
	} {
		checkGrad(t, gradCase{name: tc.name, shapes: shapes, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			p := ops.GRUSequence(x[0], x[1], x[2], x[3], tr.Constant(s(b, steps), tc.mask))
			return ops.Slice(p, []int{0, 0, 4 * u}, []int{b, steps, u})
		}})
	}
}
