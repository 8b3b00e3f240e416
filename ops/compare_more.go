package ops

// compareKind is the relation a comparison op tests.
type compareKind int

const (
	cmpEqual compareKind = iota
	cmpNotEqual
	cmpLess
	cmpLessEqual
	cmpGreaterEqual
)

// compareMoreAttrs identifies the comparisons of this file by their kind.
type compareMoreAttrs struct{ Kind compareKind }

// Equal returns 1 where a == b and 0 elsewhere (keras.ops.equal, the
// booleans as float32), broadcasting a and b. Comparisons have no
// gradient, as in TensorFlow; NaN equals nothing.
func Equal(a, b Tensor) Tensor { return compare("Equal", cmpEqual, a, b) }

// NotEqual returns 1 where a != b and 0 elsewhere (keras.ops.not_equal):
// the mask Embedding(mask_zero=True) and Masking compute.
func NotEqual(a, b Tensor) Tensor { return compare("NotEqual", cmpNotEqual, a, b) }

// Less returns 1 where a < b and 0 elsewhere (keras.ops.less).
func Less(a, b Tensor) Tensor { return compare("Less", cmpLess, a, b) }

// LessEqual returns 1 where a <= b and 0 elsewhere (keras.ops.less_equal).
func LessEqual(a, b Tensor) Tensor { return compare("LessEqual", cmpLessEqual, a, b) }

// GreaterEqual returns 1 where a >= b and 0 elsewhere
// (keras.ops.greater_equal).
func GreaterEqual(a, b Tensor) Tensor { return compare("GreaterEqual", cmpGreaterEqual, a, b) }

func compare(name string, kind compareKind, a, b Tensor) Tensor {
	tr := sameTrace(name, a, b)
	out, ok := BroadcastShape(a.Shape(), b.Shape())
	if !ok {
		fail(name, "shapes %v and %v are not broadcast-compatible", a.Shape(), b.Shape())
	}
	a, b = BroadcastTo(a, out), BroadcastTo(b, out)
	var test func(x, y float32) bool
	switch kind {
	case cmpEqual:
		test = func(x, y float32) bool { return x == y }
	case cmpNotEqual:
		test = func(x, y float32) bool { return x != y }
	case cmpLess:
		test = func(x, y float32) bool { return x < y }
	case cmpLessEqual:
		test = func(x, y float32) bool { return x <= y }
	default:
		test = func(x, y float32) bool { return x >= y }
	}
	return tr.apply(&Op{
		name: name, out: out, attrs: compareMoreAttrs{Kind: kind}, wrt: []bool{false, false},
		fwd: func(o []float32, in [][]float32) {
			x, y := in[0][:len(o)], in[1][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					o[i] = b2f(test(x[i], y[i]))
				}
			})
		},
	}, a, b)
}

// Select returns a where cond is non-zero and b elsewhere, broadcasting
// the three (keras.ops.where with both branches). The gradient of a is
// dy where cond holds, of b dy elsewhere; cond has none. Unlike
// cond*a + (1-cond)*b, an infinite or NaN entry of the branch not taken
// does not leak into the result.
func Select(cond, a, b Tensor) Tensor {
	tr := sameTrace("Select", cond, a, b)
	out, ok := BroadcastShape(a.Shape(), b.Shape())
	if ok {
		out, ok = BroadcastShape(cond.Shape(), out)
	}
	if !ok {
		fail("Select", "shapes %v, %v and %v are not broadcast-compatible", cond.Shape(), a.Shape(), b.Shape())
	}
	c := BroadcastTo(cond, out)
	return tr.apply(&Op{
		name: "Select", out: out, attrs: struct{}{}, wrt: []bool{false, true, true},
		fwd: func(o []float32, in [][]float32) {
			c, x, y := in[0][:len(o)], in[1][:len(o)], in[2][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if c[i] != 0 {
						o[i] = x[i]
					} else {
						o[i] = y[i]
					}
				}
			})
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			z := ZerosLike(dy)
			return []Tensor{{}, Select(in[0], dy, z), Select(in[0], z, dy)}
		},
	}, c, BroadcastTo(a, out), BroadcastTo(b, out))
}
