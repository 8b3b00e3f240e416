package ops

// Minimum returns the elementwise minimum of a and b with broadcasting
// (tf.minimum / keras.ops.minimum). It is -max(-a, -b): negation is
// exact, so the values are those of a minimum, and where a and b tie the
// gradient goes to a, as TensorFlow's minimum gives it to x where x <= y.
func Minimum(a, b Tensor) Tensor {
	sameTrace("Minimum", a, b)
	if _, ok := BroadcastShape(a.Shape(), b.Shape()); !ok {
		fail("Minimum", "shapes %v and %v are not broadcast-compatible", a.Shape(), b.Shape())
	}
	return Neg(Maximum(Neg(a), Neg(b)))
}
