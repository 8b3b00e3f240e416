package ops

import "math"

type castAttrs struct{ Dtype string }

// Cast converts x to dtype as tf.cast does, the result staying float32 as
// every gokeras value: "float32" and "float64" keep x (with a gradient
// passing through); the integer types ("int8", "int16", "int32",
// "int64", "uint8", "uint16", "uint32", "uint64") truncate toward zero; "bool" is 1
// where x is non-zero. Integer and bool casts have no gradient, as in
// TensorFlow. Other dtypes panic with an *Error.
func Cast(x Tensor, dtype string) Tensor {
	tr := sameTrace("Cast", x)
	switch dtype {
	case "float32", "float64":
		return x
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool":
	default:
		fail("Cast", "unsupported dtype %q (float32, float64, int8..int64, uint8..uint64, bool)", dtype)
	}
	toBool := dtype == "bool"
	return tr.apply(&Op{
		name: "Cast", out: x.Shape(), attrs: castAttrs{Dtype: dtype}, wrt: []bool{false},
		fwd: func(o []float32, in [][]float32) {
			xs := in[0][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					if toBool {
						o[i] = b2f(xs[i] != 0)
					} else {
						o[i] = float32(math.Trunc(float64(xs[i]))) + 0 // an integer has no -0
					}
				}
			})
		},
	}, x)
}
