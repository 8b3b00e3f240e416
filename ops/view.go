package ops

// ViewOf reports whether the op's output is its input number i unchanged
// but for the shape (a Reshape, or a bfloat16 cast of values that are
// bfloat16 already, castExactBFloat16): an executor may then let the output share
// the input's storage instead of running the kernel, provided nothing
// writes either buffer while the other is still read.
func (o *Op) ViewOf() (input int, ok bool) {
	if (o.name == "Reshape" || o.name == "CastToBFloat16Exact") && len(o.ins) == 1 {
		return 0, true
	}
	return -1, false
}
