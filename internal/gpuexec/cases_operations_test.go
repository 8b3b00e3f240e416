package gpuexec_test

import (
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// Conformance cases of the ops behind Keras 3's operation nodes
// (keras.layers' Operation: where, x[a:b:s]) and the mask plumbing of
// functional models (Tie). They have no GPU kernel yet, so on a GPU they
// check the fallback to the CPU kernel inside a GPU program.
func init() {
	opCases = append(opCases,
		opCase{name: "Select", shapes: []ops.Shape{{4, 5}, {4, 5}, {5}},
			fill: []func(*rand.Rand, int) float32{intsBelow(2), normal, normal}, wrt: []int{1, 2},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Select(in[0], in[1], in[2]) }},
		// Steps 2 and -1 (not contiguous: a Slice otherwise); the gradient
		// is StridedSliceGrad.
		opCase{name: "StridedSlice", shapes: []ops.Shape{{3, 7, 4}}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.StridedSlice(in[0], []int{0, 1, 3}, []int{3, 3, 2}, []int{1, 2, -1})
			}},
		opCase{name: "Tie", shapes: []ops.Shape{{4, 5}, {4}}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Mul(ops.Tie(in[0], in[1]), in[0]) }},
	)
}
