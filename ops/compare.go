package ops

// compareAttrs identifies a comparison op; the arithmetic is the kind.
type compareAttrs struct{}

// Greater returns 1 where a > b and 0 elsewhere (tf.greater, with the
// booleans as float32 as every gokeras value), broadcasting a and b. It
// has no gradient, as TensorFlow's comparisons.
func Greater(a, b Tensor) Tensor {
	tr := sameTrace("Greater", a, b)
	out, ok := BroadcastShape(a.Shape(), b.Shape())
	if !ok {
		fail("Greater", "shapes %v and %v are not broadcast-compatible", a.Shape(), b.Shape())
	}
	a, b = BroadcastTo(a, out), BroadcastTo(b, out)
	return tr.apply(&Op{
		name: "Greater", out: out, attrs: compareAttrs{}, wrt: []bool{false, false},
		fwd: func(o []float32, in [][]float32) {
			x, y := in[0][:len(o)], in[1][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					o[i] = b2f(x[i] > y[i])
				}
			})
		},
	}, a, b)
}
