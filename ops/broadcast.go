package ops

import "github.com/gokeras/gokeras/internal/vec"

// BroadcastShape returns the numpy-style broadcast of two shapes, or ok=false.
func BroadcastShape(a, b Shape) (Shape, bool) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, false
		}
	}
	return out, true
}

// bstrides returns, for each dim of out, the stride of in along it
// (0 where in is broadcast). in must broadcast to out.
func bstrides(in, out Shape) []int {
	st := make([]int, len(out))
	s := 1
	for i := len(out) - 1; i >= 0; i-- {
		j := len(in) - len(out) + i
		if j >= 0 && in[j] != 1 {
			st[i] = s
			s *= in[j]
		}
	}
	return st
}

// mapIndex calls f(outIndex, aIndex, bIndex) for every element of out, with
// a and b broadcast to out. The innermost dimension is handled as a run so
// the common cases stay tight loops.
func mapIndex(out Shape, sa, sb []int, f func(o, ia, ib, n, stepA, stepB int)) {
	r := len(out)
	if r == 0 {
		f(0, 0, 0, 1, 0, 0)
		return
	}
	inner := out[r-1]
	outer := out.Size() / max(inner, 1)
	if inner == 0 {
		return
	}
	idx := make([]int, r-1)
	ia, ib := 0, 0
	for o := 0; o < outer; o++ {
		f(o*inner, ia, ib, inner, sa[r-1], sb[r-1])
		// increment the multi-index over the outer dims
		for d := r - 2; d >= 0; d-- {
			idx[d]++
			ia += sa[d]
			ib += sb[d]
			if idx[d] < out[d] {
				break
			}
			ia -= sa[d] * out[d]
			ib -= sb[d] * out[d]
			idx[d] = 0
		}
	}
}

// trailingOf reports whether in, broadcast to out, is a vector repeated
// along out's leading dims: in's shape without its leading 1s is a suffix
// of out's. It returns the vector's length.
func trailingOf(in, out Shape) (int, bool) {
	i := 0
	for i < len(in) && in[i] == 1 {
		i++
	}
	tail := in[i:]
	if len(tail) > len(out) || !tail.Equal(out[len(out)-len(tail):]) {
		return 0, false
	}
	return tail.Size(), true
}

// leadingOf reports whether in, broadcast to out, holds one scalar per row
// of out's trailing dims: in's shape is out's leading dims followed by 1s
// (the keepdims result of a reduction over trailing axes). It returns the
// row length.
func leadingOf(in, out Shape) (int, bool) {
	if len(in) != len(out) {
		return 0, false
	}
	k := len(in)
	for k > 0 && in[k-1] == 1 {
		k--
	}
	if k == len(in) || !in[:k].Equal(out[:k]) {
		return 0, false
	}
	return Shape(out[k:]).Size(), true
}

// runBinary computes n elements o[i] = a[i*sa] kind b[i*sb] for strides 0
// (a repeated scalar) or 1.
func runBinary(kind binKind, o, a []float32, sa int, b []float32, sb int) {
	n := len(o)
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:n], b[:n]
		switch kind {
		case binAdd:
			vec.Add(o, a, b)
		case binSub:
			vec.Sub(o, a, b)
		case binMul:
			vec.Mul(o, a, b)
		case binDiv:
			for i := range o {
				o[i] = a[i] / b[i]
			}
		case binMax:
			for i := range o {
				o[i] = max(a[i], b[i])
			}
		case binGreaterEqual:
			for i := range o {
				o[i] = b2f(a[i] >= b[i])
			}
		}
	case sa == 1 && sb == 0:
		a, s := a[:n], b[0]
		switch kind {
		case binAdd:
			vec.AddScalar(o, a, s)
		case binSub:
			vec.AddScalar(o, a, -s)
		case binMul:
			vec.Scale(o, a, s)
		case binDiv:
			for i := range o {
				o[i] = a[i] / s
			}
		case binMax:
			for i := range o {
				o[i] = max(a[i], s)
			}
		case binGreaterEqual:
			for i := range o {
				o[i] = b2f(a[i] >= s)
			}
		}
	case sa == 0 && sb == 1:
		s, b := a[0], b[:n]
		switch kind {
		case binAdd:
			vec.AddScalar(o, b, s)
		case binSub:
			for i := range o {
				o[i] = s - b[i]
			}
		case binMul:
			vec.Scale(o, b, s)
		case binDiv:
			for i := range o {
				o[i] = s / b[i]
			}
		case binMax:
			for i := range o {
				o[i] = max(s, b[i])
			}
		case binGreaterEqual:
			for i := range o {
				o[i] = b2f(s >= b[i])
			}
		}
	default:
		for i := range o {
			x, y := a[i*sa], b[i*sb]
			var v float32
			switch kind {
			case binAdd:
				v = x + y
			case binSub:
				v = x - y
			case binMul:
				v = x * y
			case binDiv:
				v = x / y
			case binMax:
				v = max(x, y)
			case binGreaterEqual:
				v = b2f(x >= y)
			}
			o[i] = v
		}
	}
}

// binaryKernel returns a forward kernel computing out = a kind b with
// broadcasting. The common patterns are whole-slice loops, parallel when
// large: equal shapes, a scalar operand, a vector repeated over rows (a
// bias or per-channel scale of shape (C,) against (..., C)) and one scalar
// per row (a keepdims reduction against its source); anything else walks
// the broadcast index in runs of the innermost dimension.
func binaryKernel(a, b, out Shape, kind binKind) func([]float32, [][]float32) {
	na, nb, no := a.Size(), b.Size(), out.Size()
	switch {
	case na == no && nb == no:
		return func(o []float32, in [][]float32) {
			x, y := in[0][:no], in[1][:no]
			parallelElems(no, func(lo, hi int) { runBinary(kind, o[lo:hi], x[lo:hi], 1, y[lo:hi], 1) })
		}
	case nb == 1 && na == no:
		return func(o []float32, in [][]float32) {
			x, y := in[0][:no], in[1][:1]
			parallelElems(no, func(lo, hi int) { runBinary(kind, o[lo:hi], x[lo:hi], 1, y, 0) })
		}
	case na == 1 && nb == no:
		return func(o []float32, in [][]float32) {
			x, y := in[0][:1], in[1][:no]
			parallelElems(no, func(lo, hi int) { runBinary(kind, o[lo:hi], x, 0, y[lo:hi], 1) })
		}
	}
	if na == no {
		if c, ok := trailingOf(b, out); ok && c > 0 {
			return func(o []float32, in [][]float32) {
				x, y := in[0][:no], in[1][:c]
				parallelRows(no/c, c, func(lo, hi int) {
					for r := lo; r < hi; r++ {
						runBinary(kind, o[r*c:(r+1)*c], x[r*c:], 1, y, 1)
					}
				})
			}
		}
		if c, ok := leadingOf(b, out); ok && c > 0 {
			return func(o []float32, in [][]float32) {
				x, y := in[0][:no], in[1][:no/c]
				parallelRows(no/c, c, func(lo, hi int) {
					for r := lo; r < hi; r++ {
						runBinary(kind, o[r*c:(r+1)*c], x[r*c:], 1, y[r:], 0)
					}
				})
			}
		}
	}
	if nb == no {
		if c, ok := trailingOf(a, out); ok && c > 0 {
			return func(o []float32, in [][]float32) {
				x, y := in[0][:c], in[1][:no]
				parallelRows(no/c, c, func(lo, hi int) {
					for r := lo; r < hi; r++ {
						runBinary(kind, o[r*c:(r+1)*c], x, 1, y[r*c:], 1)
					}
				})
			}
		}
		if c, ok := leadingOf(a, out); ok && c > 0 {
			return func(o []float32, in [][]float32) {
				x, y := in[0][:no/c], in[1][:no]
				parallelRows(no/c, c, func(lo, hi int) {
					for r := lo; r < hi; r++ {
						runBinary(kind, o[r*c:(r+1)*c], x[r:], 0, y[r*c:], 1)
					}
				})
			}
		}
	}
	sa, sb := bstrides(a, out), bstrides(b, out)
	return func(o []float32, in [][]float32) {
		x, y := in[0], in[1]
		mapIndex(out, sa, sb, func(off, ia, ib, n, da, db int) {
			runBinary(kind, o[off:off+n], x[ia:], da, y[ib:], db)
		})
	}
}
