package ops

import (
	"fmt"
	"slices"
)

// SumTo sums x down to shape, the inverse of broadcasting shape to x's
// shape: the gradient of a broadcast operand.
func SumTo(x Tensor, shape Shape) Tensor {
	xs := x.Shape()
	if xs.Equal(shape) {
		return x
	}
	if b, ok := BroadcastShape(shape, xs); !ok || !b.Equal(xs) {
		fail("SumTo", "cannot sum %v down to %v", xs, shape)
	}
	tr := sameTrace("SumTo", x)
	st := bstrides(shape, xs)
	zero := make([]int, len(xs))
	// Sums accumulate in float64: reductions feed statistics such as batch
	// norm's E[x²]-E[x]², where float32 rounding of a long sum is
	// amplified, and a sum must not depend on how a batch was split.
	acc := make([]float64, shape.Size())
	return tr.apply(&Op{
		name: "SumTo", out: shape.Clone(), attrs: fmt.Sprint(shape),
		fwd: func(o []float32, in [][]float32) {
			clear(acc)
			src := in[0]
			mapIndex(xs, st, zero, func(off, io, _, n, do, _ int) {
				if do == 0 {
					var s float64
					for _, v := range src[off : off+n] {
						s += float64(v)
					}
					acc[io] += s
					return
				}
				for i := 0; i < n; i++ {
					acc[io+i*do] += float64(src[off+i])
				}
			})
			for i, v := range acc {
				o[i] = float32(v)
			}
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{BroadcastTo(dy, xs)} },
	}, x)
}

// BroadcastTo repeats x to shape by numpy broadcasting rules.
func BroadcastTo(x Tensor, shape Shape) Tensor {
	xs := x.Shape()
	if xs.Equal(shape) {
		return x
	}
	if b, ok := BroadcastShape(xs, shape); !ok || !b.Equal(shape) {
		fail("BroadcastTo", "cannot broadcast %v to %v", xs, shape)
	}
	tr := sameTrace("BroadcastTo", x)
	st := bstrides(xs, shape)
	zero := make([]int, len(shape))
	return tr.apply(&Op{
		name: "BroadcastTo", out: shape.Clone(), attrs: fmt.Sprint(shape),
		fwd: func(o []float32, in [][]float32) {
			src := in[0]
			mapIndex(shape, st, zero, func(off, ia, _, n, da, _ int) {
				for i := 0; i < n; i++ {
					o[off+i] = src[ia+i*da]
				}
			})
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor { return []Tensor{SumTo(dy, xs)} },
	}, x)
}

func normAxes(op string, rank int, axes []int) []int {
	if len(axes) == 0 {
		out := make([]int, rank)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, 0, len(axes))
	for _, a := range axes {
		if a < 0 {
			a += rank
		}
		if a < 0 || a >= rank {
			fail(op, "axis %d out of range for rank %d", a, rank)
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// Sum reduces x by summing over axes (all axes if none are given). With
// keepDims the reduced axes stay as size 1.
func Sum(x Tensor, keepDims bool, axes ...int) Tensor {
	xs := x.Shape()
	ax := normAxes("Sum", len(xs), axes)
	keep := xs.Clone()
	var final Shape
	for i := range keep {
		if slices.Contains(ax, i) {
			keep[i] = 1
		} else {
			final = append(final, xs[i])
		}
	}
	s := SumTo(x, keep)
	if keepDims {
		return s
	}
	if final == nil {
		final = Shape{}
	}
	return Reshape(s, final)
}

// Mean reduces x by averaging over axes (all axes if none are given).
func Mean(x Tensor, keepDims bool, axes ...int) Tensor {
	xs := x.Shape()
	ax := normAxes("Mean", len(xs), axes)
	n := 1
	for _, a := range ax {
		n *= xs[a]
	}
	if n == 0 {
		fail("Mean", "mean over empty axes of shape %v", xs)
	}
	return Scale(Sum(x, keepDims, axes...), 1/float32(n))
}
