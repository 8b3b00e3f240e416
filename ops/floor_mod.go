package ops

import "math"

// FloorModScalar returns x - n*floor(x/n) elementwise (tf.math.floormod
// by a positive constant: the result has n's sign, so it is in [0, n)),
// computed in float64. It has no gradient: its use is integer ids
// (IntegerLookup's out-of-vocabulary buckets).
func FloorModScalar(x Tensor, n float32) Tensor {
	tr := sameTrace("FloorModScalar", x)
	if !(n > 0) || math.IsInf(float64(n), 0) {
		fail("FloorModScalar", "the divisor must be positive and finite, got %v", n)
	}
	d := float64(n)
	return tr.apply(&Op{
		name: "FloorModScalar", out: x.Shape(), attrs: unaryAttrs{C: n}, wrt: []bool{false},
		fwd: func(o []float32, in [][]float32) {
			x := in[0][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					v := float64(x[i])
					o[i] = float32(v - d*math.Floor(v/d))
				}
			})
		},
	}, x)
}
