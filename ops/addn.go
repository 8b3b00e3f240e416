package ops

type addNAttrs struct{ N int }

// AddN returns the elementwise sum of tensors of one shape (tf.add_n),
// added in argument order; the gradient of each is the output's gradient.
func AddN(xs ...Tensor) Tensor {
	if len(xs) == 0 {
		fail("AddN", "no inputs")
	}
	tr := sameTrace("AddN", xs...)
	shape := xs[0].Shape()
	for i, x := range xs {
		if !x.Shape().Equal(shape) {
			fail("AddN", "input %d has shape %v, input 0 %v: AddN does not broadcast", i, x.Shape(), shape)
		}
	}
	if len(xs) == 1 {
		return xs[0]
	}
	return tr.apply(&Op{
		name: "AddN", out: shape, attrs: addNAttrs{N: len(xs)},
		fwd: func(o []float32, in [][]float32) {
			parallelElems(len(o), func(lo, hi int) {
				copy(o[lo:hi], in[0][lo:hi])
				for _, x := range in[1:] {
					x = x[lo:hi]
					for i := range x {
						o[lo+i] += x[i]
					}
				}
			})
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			g := make([]Tensor, len(in))
			for i := range g {
				g[i] = dy
			}
			return g
		},
	}, xs...)
}
