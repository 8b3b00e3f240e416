package ops

// Tie returns x unchanged as a tensor of its own that depends on dep too:
// a node apart from x (so that what a trace attaches to it, such as a
// Keras mask, is not attached to x) and from any other Tie of x (its
// hash covers dep). The gradient goes to x; dep gets none. Its kernel
// copies x.
func Tie(x, dep Tensor) Tensor {
	tr := sameTrace("Tie", x, dep)
	return tr.apply(&Op{
		name: "Tie", out: x.Shape(), attrs: struct{}{}, wrt: []bool{true, false},
		fwd:  func(o []float32, in [][]float32) { copy(o, in[0]) },
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{dy, {}} },
	}, x, dep)
}
