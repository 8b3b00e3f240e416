package ops

type reverseAttrs struct{ Axis int }

// Reverse reverses the order of x's entries along axis (negative counts
// from the end), as tf.reverse. Its gradient is dy reversed the same way.
func Reverse(x Tensor, axis int) Tensor {
	tr := sameTrace("Reverse", x)
	xs := x.Shape()
	a := normAxes("Reverse", len(xs), []int{axis})[0]
	n := xs[a]
	if len(xs) == 0 || n == 1 {
		return x
	}
	inner := 1
	for _, d := range xs[a+1:] {
		inner *= d
	}
	outer := xs.Size() / max(n*inner, 1)
	return tr.apply(&Op{
		name: "Reverse", out: xs.Clone(), attrs: reverseAttrs{Axis: a},
		fwd: func(o []float32, in [][]float32) {
			src := in[0]
			for b := 0; b < outer; b++ {
				base := b * n * inner
				for i := 0; i < n; i++ {
					copy(o[base+i*inner:base+(i+1)*inner], src[base+(n-1-i)*inner:base+(n-i)*inner])
				}
			}
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{Reverse(dy, a)} },
	}, x)
}
