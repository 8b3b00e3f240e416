package ops

// Ones returns an eager tensor of the given shape filled with 1
// (tf.ones / keras.ops.ones). Used in a traced function it is a constant
// of that trace.
func Ones(shape Shape) Tensor { return filled("Ones", shape, 1) }

// Zeros returns an eager tensor of the given shape filled with 0
// (tf.zeros / keras.ops.zeros); see [Ones].
func Zeros(shape Shape) Tensor { return filled("Zeros", shape, 0) }

// OnesLike returns a tensor of x's shape filled with 1, in x's trace
// (eager or symbolic): tf.ones_like.
func OnesLike(x Tensor) Tensor { return filledLike("OnesLike", x, 1) }

// ZerosLike returns a tensor of x's shape filled with 0, in x's trace:
// tf.zeros_like.
func ZerosLike(x Tensor) Tensor { return filledLike("ZerosLike", x, 0) }

func filled(op string, shape Shape, v float32) Tensor {
	return EagerContext().Constant(shape, fillData(op, shape, v))
}

func filledLike(op string, x Tensor, v float32) Tensor {
	tr := sameTrace(op, x)
	return tr.Constant(x.Shape(), fillData(op, x.Shape(), v))
}

// maxFilled bounds what Ones and Zeros allocate: 2^31 values (8 GiB).
const maxFilled = 1 << 31

func fillData(op string, shape Shape, v float32) []float32 {
	n := 1
	for _, d := range shape {
		if d < 0 {
			fail(op, "shape %v has a negative dimension", shape)
		}
		if d > 0 && n > maxFilled/d {
			fail(op, "shape %v has more than %d values", shape, maxFilled)
		}
		n *= d
	}
	data := make([]float32, n)
	if v != 0 {
		for i := range data {
			data[i] = v
		}
	}
	return data
}
