package ops

import "math"

// Sin returns the sine of x (radians), elementwise (keras.ops.sin), for
// the rotation matrices of the augmentation layers (Keras'
// _compute_affine_matrix). The gradient is dy cos(x).
func Sin(x Tensor) Tensor {
	return unary("Sin", x, unaryAttrs{}, mapf(func(v float32) float32 { return float32(math.Sin(float64(v))) }),
		func(x, _, dy Tensor) Tensor { return Mul(dy, Cos(x)) })
}

// Cos returns the cosine of x (radians), elementwise (keras.ops.cos). The
// gradient is -dy sin(x).
func Cos(x Tensor) Tensor {
	return unary("Cos", x, unaryAttrs{}, mapf(func(v float32) float32 { return float32(math.Cos(float64(v))) }),
		func(x, _, dy Tensor) Tensor { return Neg(Mul(dy, Sin(x))) })
}
