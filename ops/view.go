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

// InPlaceOf reports whether the op's kernel may write its output over its
// input number i (same size; out and in the same slice): an executor may
// then give the output that input's storage when nothing reads the input
// afterwards. The precision casts (CastToBFloat16, CastToFloat16) are such
// elementwise ops; their input is mostly a value made only to be cast.
func (o *Op) InPlaceOf() (input int, ok bool) {
	if (o.name == "CastToBFloat16" || o.name == "CastToFloat16") && len(o.ins) == 1 {
		return 0, true
	}
	return -1, false
}
