package ops

type transposeAttrs struct{ Perm []int }

// Transpose permutes the axes of x: output axis i is input axis perm[i],
// as tf.transpose / keras.ops.transpose. The gradient transposes dy by the
// inverse permutation.
func Transpose(x Tensor, perm []int) Tensor {
	tr := sameTrace("Transpose", x)
	xs := x.Shape()
	if len(perm) != len(xs) {
		fail("Transpose", "permutation %v for rank-%d input %v", perm, len(xs), xs)
	}
	inv := make([]int, len(perm))
	seen := make([]bool, len(perm))
	ident := true
	for i, p := range perm {
		if p < 0 || p >= len(xs) || seen[p] {
			fail("Transpose", "%v is not a permutation of the axes of %v", perm, xs)
		}
		seen[p] = true
		inv[p] = i
		ident = ident && p == i
	}
	if ident {
		return x
	}
	out := make(Shape, len(xs))
	for i, p := range perm {
		out[i] = xs[p]
	}
	pm := append([]int(nil), perm...)
	k := newTransposer(xs, pm)
	return tr.apply(&Op{
		name: "Transpose", out: out, attrs: transposeAttrs{Perm: pm},
		fwd: func(o []float32, in [][]float32) { k.run(o, in[0]) },
		grad: func(_ []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{Transpose(dy, inv)}
		},
	}, x)
}

// transposer copies an input of shape in to its permutation. Axes that
// stay adjacent and in order are merged first, so a permutation that keeps
// the last axis copies runs of it.
type transposer struct {
	out    Shape // merged output shape
	stride []int // input stride of each merged output axis
	seg    int   // elements per innermost copy (1 unless the last axis stays)
}

func newTransposer(in Shape, perm []int) transposer {
	// merge output axes i, i+1 when perm[i+1] == perm[i]+1
	var groups [][]int
	for i, p := range perm {
		if i > 0 && p == perm[i-1]+1 {
			groups[len(groups)-1] = append(groups[len(groups)-1], p)
			continue
		}
		groups = append(groups, []int{p})
	}
	inStride := make([]int, len(in))
	s := 1
	for d := len(in) - 1; d >= 0; d-- {
		inStride[d] = s
		s *= in[d]
	}
	t := transposer{seg: 1}
	for _, gr := range groups {
		n := 1
		for _, d := range gr {
			n *= in[d]
		}
		t.out = append(t.out, n)
		t.stride = append(t.stride, inStride[gr[len(gr)-1]])
	}
	if last := len(t.out) - 1; last >= 0 && t.stride[last] == 1 {
		t.seg = t.out[last]
		t.out, t.stride = t.out[:last], t.stride[:last]
	}
	return t
}

func (t transposer) run(o, x []float32) {
	if len(t.out) == 0 {
		copy(o, x)
		return
	}
	r := len(t.out)
	inner, innerStride := t.out[r-1], t.stride[r-1]
	outer := 1
	for _, n := range t.out[:r-1] {
		outer *= n
	}
	rowLen := inner * t.seg
	parallelRows(outer, rowLen, func(lo, hi int) {
		idx := make([]int, r-1)
		base := 0
		rem := lo
		for d := r - 2; d >= 0; d-- {
			idx[d] = rem % t.out[d]
			rem /= t.out[d]
			base += idx[d] * t.stride[d]
		}
		for row := lo; row < hi; row++ {
			dst := o[row*rowLen : (row+1)*rowLen]
			if t.seg == 1 {
				for j := range dst {
					dst[j] = x[base+j*innerStride]
				}
			} else {
				for j := 0; j < inner; j++ {
					copy(dst[j*t.seg:(j+1)*t.seg], x[base+j*innerStride:])
				}
			}
			for d := r - 2; d >= 0; d-- {
				idx[d]++
				base += t.stride[d]
				if idx[d] < t.out[d] {
					break
				}
				base -= t.stride[d] * t.out[d]
				idx[d] = 0
			}
		}
	})
}
