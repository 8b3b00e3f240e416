package ops

import (
	"fmt"
	"math"
	"slices"
)

type maxAttrs struct {
	Axes     []int
	KeepDims bool
}

// Max reduces x by taking the maximum over axes (all axes if none are
// given). With keepDims the reduced axes stay as size 1. The gradient goes
// to the first maximal element of each reduction, in row-major order
// (TensorFlow splits it among ties instead).
func Max(x Tensor, keepDims bool, axes ...int) Tensor {
	tr := sameTrace("Max", x)
	xs := x.Shape()
	ax := normAxes("Max", len(xs), axes)
	keep := xs.Clone()
	var final Shape
	for i := range keep {
		if slices.Contains(ax, i) {
			if xs[i] == 0 {
				fail("Max", "maximum over an empty axis of shape %v", xs)
			}
			keep[i] = 1
		} else {
			final = append(final, xs[i])
		}
	}
	out := final
	if keepDims {
		out = keep
	}
	if out == nil {
		out = Shape{}
	}
	st := bstrides(keep, xs)
	zero := make([]int, len(xs))
	// argmax[i] is the input index output i came from, kept for the
	// backward pass of the same replay.
	argmax := make([]int32, keep.Size())
	return tr.apply(&Op{
		name: "Max", out: out, attrs: maxAttrs{Axes: ax, KeepDims: keepDims},
		fwd: func(o []float32, in [][]float32) {
			for i := range o {
				o[i] = float32(math.Inf(-1))
				argmax[i] = -1
			}
			src := in[0]
			mapIndex(xs, st, zero, func(off, io, _, n, do, _ int) {
				for i := 0; i < n; i++ {
					j := io + i*do
					if v := src[off+i]; v > o[j] || argmax[j] < 0 {
						o[j] = v
						argmax[j] = int32(off + i)
					}
				}
			})
		},
		// The gradient reads the argmax of the forward pass: it takes the
		// forward output y as an input so that it runs after it.
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			return []Tensor{tr.apply(&Op{
				name: "MaxGrad", out: xs.Clone(), attrs: fmt.Sprintf("%+v%v", maxAttrs{Axes: ax, KeepDims: keepDims}, xs),
				fwd: func(o []float32, in [][]float32) {
					clear(o)
					for i, g := range in[1] {
						o[argmax[i]] += g
					}
				},
				wrt: []bool{false, false},
			}, y, dy)}
		},
	}, x)
}
