//go:build !(amd64 || arm64) || noasm

package vec

func setArgPixelsAsm(ov *float32, am *int32, x *float32, base, c, count, xs int) {
	panic("vec: no assembly")
}

func maxArgPixelsAsm(ov *float32, am *int32, x *float32, base, c, count, xs int) {
	panic("vec: no assembly")
}

func selectArgAsm(o, d *float32, am *int32, base, n int) { panic("vec: no assembly") }
