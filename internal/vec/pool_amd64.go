//go:build !noasm

package vec

//go:noescape
func setArgPixelsAsm(ov *float32, am *int32, x *float32, base, c, count, xs int)

//go:noescape
func maxArgPixelsAsm(ov *float32, am *int32, x *float32, base, c, count, xs int)

// selectArgAsm: o[j] = d[j] where am[j] == base+j, else 0, for n (a
// multiple of 16) values.
//
//go:noescape
func selectArgAsm(o, d *float32, am *int32, base, n int)
