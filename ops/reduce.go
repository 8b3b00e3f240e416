package ops

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/internal/vec"
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
	return tr.apply(&Op{
		name: "SumTo", out: shape.Clone(), attrs: fmt.Sprint(shape),
		fwd:  sumToKernel(xs, shape),
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{BroadcastTo(dy, xs)} },
	}, x)
}

// ReduceGroups views big as (a, r, c) where small, broadcast to big, is
// (a, 1, c): the reduced dims form one contiguous block. ok is false for
// other patterns (reduced dims on both sides of a kept one).
func ReduceGroups(small, big Shape) (a, r, c int, ok bool) {
	a, r, c = 1, 1, 1
	phase := 0 // 0: leading kept dims, 1: reduced dims, 2: trailing kept dims
	for i, d := range big {
		sd := 1
		if j := len(small) - len(big) + i; j >= 0 {
			sd = small[j]
		}
		switch {
		case d == 1:
			// neutral
		case sd == d:
			if phase == 1 {
				phase = 2
			}
			if phase == 0 {
				a *= d
			} else {
				c *= d
			}
		default: // reduced
			if phase == 2 {
				return 0, 0, 0, false
			}
			phase = 1
			r *= d
		}
	}
	return a, r, c, true
}

// sumParts is how many partial sums a long reduction is split into (a
// constant, so the result does not depend on the number of CPUs).
const sumParts = 4

// rowParts sums the rows of a rows x c matrix into c columns in sumParts
// fixed parts of the rows, float64 partial sums computed in parallel when
// large and added in order: the result does not depend on the number of
// CPUs.
type rowParts struct {
	rows, c, per int
	parts        [][]float64
}

func newRowParts(rows, c int) *rowParts {
	rp := &rowParts{rows: rows, c: c, per: ceilDiv(rows, sumParts), parts: make([][]float64, sumParts)}
	for i := range rp.parts {
		rp.parts[i] = make([]float64, c)
	}
	return rp
}

// sum has acc add rows [r0, r1) into part p's cleared partial sums (its
// calls run concurrently), then writes the ordered sum of the parts'
// column j to o[j].
func (rp *rowParts) sum(o []float32, acc func(p int, dst []float64, r0, r1 int)) {
	run := func(lo, hi int) {
		for p := lo; p < hi; p++ {
			clear(rp.parts[p])
			acc(p, rp.parts[p], min(p*rp.per, rp.rows), min((p+1)*rp.per, rp.rows))
		}
	}
	if rp.rows*rp.c >= parMinElems {
		parallelChunks(sumParts, 1, run)
	} else {
		run(0, sumParts)
	}
	for j := range o[:rp.c] {
		s := rp.parts[0][j]
		for _, p := range rp.parts[1:] {
			s += p[j]
		}
		o[j] = float32(s)
	}
}

// sumToKernel returns the kernel of SumTo from xs to shape. Sums
// accumulate in float64: reductions feed statistics such as batch norm's
// E[x²]-E[x]², where float32 rounding of a long sum is amplified.
func sumToKernel(xs, shape Shape) func([]float32, [][]float32) {
	a, r, c, ok := ReduceGroups(shape, xs)
	if !ok {
		st := bstrides(shape, xs)
		zero := make([]int, len(xs))
		acc := make([]float64, shape.Size())
		return func(o []float32, in [][]float32) {
			clear(acc)
			src := in[0]
			mapIndex(xs, st, zero, func(off, io, _, n, do, _ int) {
				if do == 0 {
					acc[io] += vec.Sum64(src[off : off+n])
					return
				}
				for i := 0; i < n; i++ {
					acc[io+i*do] += float64(src[off+i])
				}
			})
			for i, v := range acc {
				o[i] = float32(v)
			}
		}
	}
	if a == 1 && r >= 2*sumParts {
		// One long reduction: fixed partial sums (in parallel when
		// large), combined in order.
		parts := newRowParts(r, c)
		return func(o []float32, in [][]float32) {
			src := in[0][:r*c]
			parts.sum(o, func(_ int, acc []float64, r0, r1 int) {
				if c == 1 {
					acc[0] = vec.Sum64(src[r0:r1])
				} else {
					vec.AccRows(acc, src[r0*c:r1*c])
				}
			})
		}
	}
	return func(o []float32, in [][]float32) {
		src := in[0][:a*r*c]
		parallelRows(a, r*c, func(lo, hi int) {
			var acc []float64
			if c > 1 {
				acc = make([]float64, c)
			}
			for i := lo; i < hi; i++ {
				blk := src[i*r*c : (i+1)*r*c]
				if c == 1 {
					o[i] = float32(vec.Sum64(blk))
					continue
				}
				clear(acc)
				vec.AccRows(acc, blk)
				for j, v := range acc {
					o[i*c+j] = float32(v)
				}
			}
		})
	}
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
	var fwd func(o []float32, in [][]float32)
	if a, r, c, ok := ReduceGroups(xs, shape); ok {
		fwd = func(o []float32, in [][]float32) {
			src := in[0][:a*c]
			if c == 1 {
				parallelRows(a, r, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						vec.Fill(o[i*r:(i+1)*r], src[i])
					}
				})
				return
			}
			parallelRows(a*r, c, func(lo, hi int) {
				for row := lo; row < hi; row++ {
					i := row / r
					copy(o[row*c:(row+1)*c], src[i*c:(i+1)*c])
				}
			})
		}
	} else {
		st := bstrides(xs, shape)
		zero := make([]int, len(shape))
		fwd = func(o []float32, in [][]float32) {
			src := in[0]
			mapIndex(shape, st, zero, func(off, ia, _, n, da, _ int) {
				if da == 0 {
					vec.Fill(o[off:off+n], src[ia])
					return
				}
				for i := 0; i < n; i++ {
					o[off+i] = src[ia+i*da]
				}
			})
		}
	}
	return tr.apply(&Op{
		name: "BroadcastTo", out: shape.Clone(), attrs: fmt.Sprint(shape),
		fwd:  fwd,
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
