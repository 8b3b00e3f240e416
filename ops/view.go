package ops

// ViewOf reports whether the op's output is its input number i unchanged
// but for the shape (a Reshape): an executor may then let the output share
// the input's storage instead of running the kernel, provided nothing
// writes either buffer while the other is still read.
func (o *Op) ViewOf() (input int, ok bool) {
	if o.name == "Reshape" && len(o.ins) == 1 {
		return 0, true
	}
	return -1, false
}
