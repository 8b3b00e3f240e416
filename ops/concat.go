package ops

// rowStrides returns the row-major strides of shape s.
func rowStrides(s Shape) []int {
	st := make([]int, len(s))
	n := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = n
		n *= s[i]
	}
	return st
}

// boxCopier copies a box (a hyper-rectangle) of one row-major array into a
// box of the same shape of another, a contiguous run of the innermost
// dimension at a time. Strides and offsets are fixed when it is made, so a
// kernel only loops.
type boxCopier struct {
	size           Shape // the box
	dstSt, srcSt   []int
	dstOff, srcOff int
}

func newBoxCopier(dst Shape, dstAt []int, src Shape, srcAt []int, size Shape) boxCopier {
	c := boxCopier{size: size.Clone(), dstSt: rowStrides(dst), srcSt: rowStrides(src)}
	for i := range size {
		c.dstOff += dstAt[i] * c.dstSt[i]
		c.srcOff += srcAt[i] * c.srcSt[i]
	}
	return c
}

func (c boxCopier) copy(dst, src []float32) {
	r := len(c.size)
	if r == 0 {
		dst[c.dstOff] = src[c.srcOff]
		return
	}
	if c.size.Size() == 0 {
		return
	}
	inner := c.size[r-1]
	idx := make([]int, r-1)
	d, s := c.dstOff, c.srcOff
	for {
		copy(dst[d:d+inner], src[s:s+inner])
		k := r - 2
		for ; k >= 0; k-- {
			idx[k]++
			d += c.dstSt[k]
			s += c.srcSt[k]
			if idx[k] < c.size[k] {
				break
			}
			d -= c.dstSt[k] * c.size[k]
			s -= c.srcSt[k] * c.size[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

type concatAttrs struct {
	Axis  int
	Sizes []int
}

// Concat joins xs along axis (negative counts from the end, as in
// tf.concat). Every input must have the same rank and the same dimensions
// except along axis. The gradient of each input is its slice of dy.
func Concat(axis int, xs ...Tensor) Tensor {
	if len(xs) == 0 {
		fail("Concat", "needs at least one input")
	}
	tr := sameTrace("Concat", xs...)
	first := xs[0].Shape()
	r := len(first)
	if r == 0 {
		fail("Concat", "cannot concatenate scalars")
	}
	a := axis
	if a < 0 {
		a += r
	}
	if a < 0 || a >= r {
		fail("Concat", "axis %d out of range for rank %d", axis, r)
	}
	out := first.Clone()
	out[a] = 0
	sizes := make([]int, len(xs))
	for i, x := range xs {
		s := x.Shape()
		if len(s) != r {
			fail("Concat", "input %d has shape %v, of another rank than %v", i, s, first)
		}
		for d := range s {
			if d != a && s[d] != first[d] {
				fail("Concat", "shapes %v and %v differ outside axis %d", first, s, axis)
			}
		}
		sizes[i] = s[a]
		out[a] += s[a]
	}
	if len(xs) == 1 {
		return xs[0]
	}
	copiers := make([]boxCopier, len(xs))
	at := make([]int, r)
	for i, x := range xs {
		copiers[i] = newBoxCopier(out, at, x.Shape(), make([]int, r), x.Shape())
		at[a] += sizes[i]
	}
	return tr.apply(&Op{
		name: "Concat", out: out, attrs: concatAttrs{Axis: a, Sizes: sizes},
		fwd: func(o []float32, in [][]float32) {
			for i, c := range copiers {
				c.copy(o, in[i])
			}
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			gs := make([]Tensor, len(in))
			begin := make([]int, r)
			for i, x := range in {
				gs[i] = Slice(dy, begin, x.Shape())
				begin[a] += sizes[i]
			}
			return gs
		},
	}, xs...)
}

type sliceAttrs struct{ Begin, Size []int }

// Slice extracts the box of x that starts at begin and has the given size,
// as tf.slice; a size of -1 takes everything to the end of that axis. The
// gradient pads dy back with zeros.
func Slice(x Tensor, begin, size []int) Tensor {
	tr := sameTrace("Slice", x)
	xs := x.Shape()
	if len(begin) != len(xs) || len(size) != len(xs) {
		fail("Slice", "begin %v and size %v must have one entry per dimension of %v", begin, size, xs)
	}
	out := make(Shape, len(xs))
	for d := range xs {
		n := size[d]
		if n == -1 {
			n = xs[d] - begin[d]
		}
		if begin[d] < 0 || n < 1 || begin[d]+n > xs[d] {
			fail("Slice", "begin %v, size %v out of range (or empty) for shape %v", begin, size, xs)
		}
		out[d] = n
	}
	if out.Equal(xs) {
		return x
	}
	b := append([]int(nil), begin...)
	c := newBoxCopier(out, make([]int, len(xs)), xs, b, out)
	return tr.apply(&Op{
		name: "Slice", out: out, attrs: sliceAttrs{Begin: b, Size: []int(out.Clone())},
		fwd: func(o []float32, in [][]float32) { c.copy(o, in[0]) },
		grad: func(_ []Tensor, _, dy Tensor) []Tensor {
			p := make([][2]int, len(xs))
			for d := range xs {
				p[d] = [2]int{b[d], xs[d] - b[d] - out[d]}
			}
			return []Tensor{Pad(dy, p)}
		},
	}, x)
}
