package ops_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestGradientsMore checks the gradients of the shape ops, Max, Gather and
// DepthwiseConv2D by central differences (checkGrad).
func TestGradientsMore(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	// distinct spreads values so that Max has no near-ties within eps.
	distinct := func(_ int, r *rand.Rand) float32 { return float32(r.IntN(2000))*1e-2 - 10 }
	cases := []gradCase{
		{name: "ConcatAxis1", shapes: []ops.Shape{s(2, 3, 2), s(2, 1, 2), s(2, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Concat(1, x...)
		}},
		{name: "ConcatLastNegative", shapes: []ops.Shape{s(3, 2), s(3, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Concat(-1, x[0], x[1])
		}},
		{name: "ConcatAxis0", shapes: []ops.Shape{s(1, 4), s(2, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Concat(0, x[0], x[1])
		}},
		{name: "ConcatSameInputTwice", shapes: []ops.Shape{s(2, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Concat(1, x[0], ops.Square(x[0]), x[0])
		}},
		{name: "Slice", shapes: []ops.Shape{s(3, 4, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Slice(x[0], []int{1, 0, 2}, []int{2, -1, 2})
		}},
		{name: "Pad", shapes: []ops.Shape{s(2, 3, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Pad(x[0], [][2]int{{0, 1}, {2, 0}, {1, 1}})
		}},
		{name: "Pad4D", shapes: []ops.Shape{s(1, 2, 3, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Pad(x[0], [][2]int{{0, 0}, {1, 2}, {3, 0}, {0, 0}})
		}},
		{name: "ReverseFirst", shapes: []ops.Shape{s(3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Reverse(x[0], 0) }},
		{name: "ReverseMiddle", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Reverse(x[0], 1) }},
		{name: "ReverseLast", shapes: []ops.Shape{s(2, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Reverse(x[0], -1) }},
		{name: "MaxSpatial", shapes: []ops.Shape{s(2, 3, 4, 3)}, gen: distinct, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Max(x[0], false, 1, 2)
		}},
		{name: "MaxKeep", shapes: []ops.Shape{s(3, 5)}, gen: distinct, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Max(x[0], true, -1)
		}},
		{name: "MaxAll", shapes: []ops.Shape{s(2, 3, 4)}, gen: distinct, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Max(x[0], false)
		}},
		{name: "MaxTwiceSameDy", shapes: []ops.Shape{s(3, 4), s(3, 4)}, gen: distinct, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Add(ops.Max(x[0], false, 1), ops.Max(x[1], false, 1))
		}},
		{name: "Gather", shapes: []ops.Shape{s(5, 3)}, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Gather(x[0], tr.Constant(s(2, 3), []float32{0, 4, 2, 2, 4, 4}))
		}},
		{name: "DepthwiseValid", shapes: []ops.Shape{s(2, 5, 6, 3), s(3, 2, 3, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.DepthwiseConv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
		}},
		{name: "DepthwiseSameStrided", shapes: []ops.Shape{s(2, 7, 6, 2), s(3, 3, 2, 1)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.DepthwiseConv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "DepthwiseDilated", shapes: []ops.Shape{s(1, 7, 7, 2), s(3, 3, 2, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.DepthwiseConv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{2, 2}, Padding: "same"})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
}

// TestGradientsRandomOps checks the random image ops with their draws
// frozen across replays, so that finite differences see one function.
func TestGradientsRandomOps(t *testing.T) {
	defer ops.FreezeRandomReplays()()
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	cases := []gradCase{
		{name: "RandomFlipH", shapes: []ops.Shape{s(4, 3, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.RandomFlip(x[0], true, false)
		}},
		{name: "RandomFlipHV", shapes: []ops.Shape{s(4, 3, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.RandomFlip(x[0], true, true)
		}},
		{name: "RandomCrop", shapes: []ops.Shape{s(3, 5, 6, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.RandomCrop(x[0], 3, 2)
		}},
	}
	for _, mode := range []string{"reflect", "constant", "wrap", "nearest"} {
		cases = append(cases, gradCase{name: "RandomTranslation_" + mode, shapes: []ops.Shape{s(4, 4, 5, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.RandomTranslation(x[0], [2]int{3, 4}, mode, 0.5)
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
}
