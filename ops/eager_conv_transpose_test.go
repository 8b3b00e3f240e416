package ops_test

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestEagerConvTransposeMatchesProgram: eager transposed convolutions,
// whose scratch is released after each op (TestEagerOpReleasesScratch),
// give bitwise what a program, which keeps and reuses its arena, gives:
// outputs and gradients, two in a row as the DCGAN's generator has them.
func TestEagerConvTransposeMatchesProgram(t *testing.T) {
	attrs := ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same"}
	eagerAgainstTraced(t, "conv2d_transpose", []ops.Shape{{2, 4, 4, 3}, {4, 4, 5, 3}, {4, 4, 2, 5}}, func(xs []ops.Tensor) ops.Tensor {
		h := ops.Relu(ops.Conv2DTranspose(xs[0], xs[1], attrs))
		return ops.Conv2DTranspose(h, xs[2], attrs)
	})
}
