package vec

// Running maxima over rows of pixels: a max pooling's window taps over a
// whole output row in one call each, where a call per pixel and tap (32
// or 64 channels) cost more than the comparisons.

// SetArgPixels is SetArg for count pixels of c values: pixel i sets
// ov[i*c:(i+1)*c] from x[i*xs:] with arguments base+i*xs+j.
func SetArgPixels(ov []float32, am []int32, x []float32, base, c, count, xs int) {
	argPixels(true, ov, am, x, base, c, count, xs)
}

// MaxArgPixels is MaxArg for count pixels of c values: pixel i updates
// ov[i*c:(i+1)*c] with x[i*xs:], arguments base+i*xs+j (ties keep the
// earlier argument).
func MaxArgPixels(ov []float32, am []int32, x []float32, base, c, count, xs int) {
	argPixels(false, ov, am, x, base, c, count, xs)
}

func argPixels(set bool, ov []float32, am []int32, x []float32, base, c, count, xs int) {
	if count <= 0 {
		return
	}
	_, _, _ = ov[count*c-1], am[count*c-1], x[(count-1)*xs+c-1]
	switch {
	case usePoolAsm && c%16 == 0 && set:
		setArgPixelsAsm(&ov[0], &am[0], &x[0], base, c, count, xs)
	case usePoolAsm && c%16 == 0:
		maxArgPixelsAsm(&ov[0], &am[0], &x[0], base, c, count, xs)
	default:
		for i := 0; i < count; i++ {
			o, a, v := ov[i*c:(i+1)*c], am[i*c:(i+1)*c], x[i*xs:i*xs+c]
			if set {
				SetArg(o, a, v, base+i*xs)
			} else {
				MaxArg(o, a, v, base+i*xs)
			}
		}
	}
}

// ScatterPixels writes the gradient of max-pooling windows that do not
// overlap into their inputs o: for count output pixels of c values, pixel
// i's window starts at element win+i*xs of o, its taps at the element
// offsets offs from there, and each tap's c values get dy[i*c+j] where
// the argument am[i*c+j] is that element, 0 elsewhere. Every input
// element of the windows is written once and none is read (no clearing
// pass, no scatter of additions).
func ScatterPixels(o []float32, dy []float32, am []int32, win, c, count, xs int, offs []int) {
	for i := 0; i < count; i++ {
		d, a := dy[i*c:(i+1)*c], am[i*c:(i+1)*c]
		for _, off := range offs {
			start := win + i*xs + off
			if usePoolAsm && c%16 == 0 {
				selectArgAsm(&o[start], &d[0], &a[0], start, c)
				continue
			}
			dst := o[start : start+c]
			for j := range dst {
				if int(a[j]) == start+j {
					dst[j] = d[j]
				} else {
					dst[j] = 0
				}
			}
		}
	}
}
