package ops

import "math"

// Floor returns the largest integer not above x, elementwise (tf.floor,
// keras.ops.floor). It has no gradient, as TensorFlow's Floor: the
// layers that quantize (RandomPosterization) are not differentiable
// there.
func Floor(x Tensor) Tensor {
	return unary("Floor", x, unaryAttrs{}, func(d, x []float32) {
		x = x[:len(d)]
		for i, v := range x {
			d[i] = float32(math.Floor(float64(v)))
		}
	}, nil)
}
