package ops

// stridedSliceAttrs identifies a strided slice: where each axis starts,
// how many entries it keeps and the step between them.
type stridedSliceAttrs struct{ Begin, Count, Step []int }

// StridedSlice takes, along every axis d of x, count[d] entries starting at
// begin[d] and step[d] apart (a negative step walks backwards): numpy's
// basic slicing x[b0:e0:s0, b1:e1:s1, ...] with the bounds resolved to
// entries that exist, as keras.ops' x[...] and tf.strided_slice. Every
// count must be at least 1. The gradient scatters dy back into zeros of
// x's shape.
func StridedSlice(x Tensor, begin, count, step []int) Tensor {
	tr := sameTrace("StridedSlice", x)
	xs := x.Shape()
	if len(begin) != len(xs) || len(count) != len(xs) || len(step) != len(xs) {
		fail("StridedSlice", "begin %v, count %v and step %v must have one entry per dimension of %v", begin, count, step, xs)
	}
	contiguous := true
	for d := range xs {
		last := begin[d] + (count[d]-1)*step[d]
		if step[d] == 0 || count[d] < 1 || begin[d] < 0 || begin[d] >= xs[d] || last < 0 || last >= xs[d] {
			fail("StridedSlice", "begin %v, count %v, step %v out of range (or empty) for shape %v", begin, count, step, xs)
		}
		if step[d] != 1 {
			contiguous = false
		}
	}
	if contiguous {
		return Slice(x, begin, count)
	}
	a := stridedSliceAttrs{Begin: append([]int(nil), begin...), Count: append([]int(nil), count...), Step: append([]int(nil), step...)}
	w := newStrideWalker(xs, a)
	return tr.apply(&Op{
		name: "StridedSlice", out: Shape(a.Count).Clone(), attrs: a,
		fwd: func(o []float32, in [][]float32) {
			src := in[0]
			w.walk(func(oi, xi int) { o[oi] = src[xi] })
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{stridedSliceGrad(dy, xs, a, w)} },
	}, x)
}

// stridedSliceGrad puts dy's entries where StridedSlice took them from in
// a tensor of shape xs, zeros elsewhere; its own gradient is the slice.
func stridedSliceGrad(dy Tensor, xs Shape, a stridedSliceAttrs, w strideWalker) Tensor {
	tr := sameTrace("StridedSliceGrad", dy)
	return tr.apply(&Op{
		name: "StridedSliceGrad", out: xs.Clone(), attrs: a,
		fwd: func(o []float32, in [][]float32) {
			clear(o)
			g := in[0]
			w.walk(func(oi, xi int) { o[xi] = g[oi] })
		},
		grad: func(_ []Tensor, _, ddx Tensor) []Tensor {
			return []Tensor{StridedSlice(ddx, a.Begin, a.Count, a.Step)}
		},
	}, dy)
}

// strideWalker visits the entries of a strided slice in the output's
// row-major order, with their offsets in the output and in the input.
type strideWalker struct {
	count, xStride []int // per axis: entries kept, input offset between two of them
	start          int   // input offset of the first entry
}

func newStrideWalker(xs Shape, a stridedSliceAttrs) strideWalker {
	rs := rowStrides(xs)
	w := strideWalker{count: a.Count, xStride: make([]int, len(xs))}
	for d := range xs {
		w.start += a.Begin[d] * rs[d]
		w.xStride[d] = a.Step[d] * rs[d]
	}
	return w
}

func (w strideWalker) walk(f func(oi, xi int)) {
	n := len(w.count)
	if n == 0 {
		f(0, w.start)
		return
	}
	idx := make([]int, n)
	xi, oi := w.start, 0
	last := n - 1
	for {
		for i := 0; i < w.count[last]; i++ {
			f(oi, xi+i*w.xStride[last])
			oi++
		}
		d := last - 1
		for ; d >= 0; d-- {
			idx[d]++
			xi += w.xStride[d]
			if idx[d] < w.count[d] {
				break
			}
			xi -= idx[d] * w.xStride[d]
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
