package ops

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

// binaryKernel returns a forward kernel computing out = f(a, b) with
// broadcasting, with fast paths for equal shapes and a scalar operand.
func binaryKernel(a, b, out Shape, f func(x, y float32) float32) func([]float32, [][]float32) {
	sa, sb := bstrides(a, out), bstrides(b, out)
	switch {
	case a.Size() == out.Size() && b.Size() == out.Size():
		return func(o []float32, in [][]float32) {
			x, y := in[0][:len(o)], in[1][:len(o)]
			for i := range o {
				o[i] = f(x[i], y[i])
			}
		}
	case b.Size() == 1 && a.Size() == out.Size():
		return func(o []float32, in [][]float32) {
			x, y := in[0][:len(o)], in[1][0]
			for i := range o {
				o[i] = f(x[i], y)
			}
		}
	case a.Size() == 1 && b.Size() == out.Size():
		return func(o []float32, in [][]float32) {
			x, y := in[0][0], in[1][:len(o)]
			for i := range o {
				o[i] = f(x, y[i])
			}
		}
	}
	return func(o []float32, in [][]float32) {
		x, y := in[0], in[1]
		mapIndex(out, sa, sb, func(off, ia, ib, n, da, db int) {
			for i := 0; i < n; i++ {
				o[off+i] = f(x[ia+i*da], y[ib+i*db])
			}
		})
	}
}
