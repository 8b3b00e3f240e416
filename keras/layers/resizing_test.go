package layers

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestResizingCenterCropErrors: bad sizes, methods and input ranks give
// errors, never panics.
func TestResizingCenterCropErrors(t *testing.T) {
	for _, l := range []Layer{
		NewResizing(0, 3, ResizingSettings{}),
		NewResizing(3, 1<<20, ResizingSettings{}),
		NewResizing(3, 3, ResizingSettings{Interpolation: "bicubic"}),
		NewCenterCrop(-1, 3),
	} {
		if l.Err() == nil {
			t.Errorf("%s accepted: %v", l.ClassName(), l.GetConfig())
		}
	}
	for _, l := range []Layer{NewResizing(3, 3, ResizingSettings{}), NewCenterCrop(2, 2)} {
		if _, err := OutputShape(l, []ops.Shape{{-1, 4}}); err == nil {
			t.Errorf("%s of a rank-2 input accepted", l.ClassName())
		}
	}
}

// TestResizeMatrixRowsSumToOne: every output of both methods is a convex
// combination of inputs (an independent check of the weights).
func TestResizeMatrixRowsSumToOne(t *testing.T) {
	for _, m := range []string{"bilinear", "nearest"} {
		for in := 1; in < 9; in++ {
			for out := 1; out < 13; out++ {
				a := resizeMatrix(in, out, m)
				for o := range out {
					s := float32(0)
					for i := range in {
						if a[o*in+i] < 0 {
							t.Fatalf("%s %d->%d: negative weight", m, in, out)
						}
						s += a[o*in+i]
					}
					if s < 0.99999 || s > 1.00001 {
						t.Fatalf("%s %d->%d row %d sums to %v", m, in, out, o, s)
					}
				}
			}
		}
	}
}
