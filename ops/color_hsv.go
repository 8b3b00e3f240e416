package ops

// RGBToHSV converts RGB to HSV along the last axis, which must be 3: as
// tf.image.rgb_to_hsv (keras.ops.image.rgb_to_hsv), with the arithmetic
// of TensorFlow's kernel in float32, so that the hue, saturation and
// value are the bits TensorFlow computes up to its fused multiply-adds:
// V = max(r, g, b), S = (V - min) / V (0 where V is 0), and H in [0, 1)
// from the channel holding the maximum (red, then green, then blue on
// ties), 0 where the three are equal. The values need not be in [0, 1]
// (Keras' RandomSaturation converts 0..255 images).
//
// The gradient is that of the piecewise formula: through the channels
// holding the maximum and (the first) minimum, zero where r = g = b.
func RGBToHSV(x Tensor) Tensor {
	return colorOp("RGBToHSV", x, rgbToHSV, rgbToHSVGrad)
}

// HSVToRGB converts HSV to RGB along the last axis, which must be 3, as
// tf.image.hsv_to_rgb: with dh = 6h, each channel is
// (1 - s + s*c) * v for c = clip(|dh-3| - 1), clip(2 - |dh-2|) and
// clip(2 - |dh-4|) (clip to [0, 1]), TensorFlow's kernel's arithmetic.
// The gradient is that formula's (zero across the clips).
func HSVToRGB(x Tensor) Tensor {
	return colorOp("HSVToRGB", x, hsvToRGB, hsvToRGBGrad)
}

type colorAttrs struct{}

// colorOp applies px to each pixel (3 values) of x; its gradient is the
// op named name+"Grad" of x and dy, computed by gpx per pixel (no
// second derivative).
func colorOp(name string, x Tensor, px func(o, p []float32), gpx func(dx, p, dy []float32)) Tensor {
	tr := sameTrace(name, x)
	s := x.Shape()
	if len(s) == 0 || s[len(s)-1] != 3 {
		fail(name, "the last axis must have 3 channels, got shape %v", s)
	}
	return tr.apply(&Op{
		name: name, out: s, attrs: colorAttrs{},
		fwd: func(o []float32, in [][]float32) {
			xs := in[0][:len(o)]
			parallelElems(len(o)/3, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					px(o[3*i:3*i+3], xs[3*i:3*i+3])
				}
			})
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{tr.apply(&Op{
				name: name + "Grad", out: s, attrs: colorAttrs{}, wrt: []bool{false, false},
				fwd: func(o []float32, in [][]float32) {
					xs, ds := in[0][:len(o)], in[1][:len(o)]
					parallelElems(len(o)/3, func(lo, hi int) {
						for i := lo; i < hi; i++ {
							gpx(o[3*i:3*i+3], xs[3*i:3*i+3], ds[3*i:3*i+3])
						}
					})
				},
			}, in[0], dy)}
		},
	}, x)
}

// rgbArgs returns the index of the maximum (red, green, blue first on
// ties, as TensorFlow's selects test R == V, then G == V) and of the
// first minimum.
func rgbArgs(p []float32) (imax, imin int) {
	v := max(p[0], p[1], p[2])
	switch {
	case p[0] == v:
		imax = 0
	case p[1] == v:
		imax = 1
	default:
		imax = 2
	}
	m := min(p[0], p[1], p[2])
	switch {
	case p[0] == m:
		imin = 0
	case p[1] == m:
		imin = 1
	default:
		imin = 2
	}
	return imax, imin
}

func rgbToHSV(o, p []float32) {
	r, g, b := p[0], p[1], p[2]
	v := max(r, g, b)
	rng := v - min(r, g, b)
	var s float32
	if v > 0 {
		s = rng / v
	}
	norm := (1 / rng) * (float32(1) / float32(6))
	// float32(...) rounds each product before the sum (no fused
	// multiply-add), as TensorFlow's kernel does.
	var h float32
	switch {
	case r == v:
		h = norm * (g - b)
	case g == v:
		h = float32(norm*(b-r)) + float32(2)/float32(6)
	default:
		h = float32(norm*(r-g)) + float32(4)/float32(6)
	}
	if !(rng > 0) {
		h = 0
	}
	if h < 0 {
		h++
	}
	o[0], o[1], o[2] = h, s, v
}

// rgbToHSVGrad: with C = V - min, S = C / V and H = offset + N / (6C) for
// N the difference of the two channels other than the maximum's.
func rgbToHSVGrad(dx, p, dy []float32) {
	dx[0], dx[1], dx[2] = 0, 0, 0
	imax, imin := rgbArgs(p)
	v := float64(p[imax])
	c := v - float64(p[imin])
	dx[imax] += dy[2]   // V
	if v > 0 && c > 0 { // S = 1 - min / V
		m := float64(p[imin])
		dx[imax] += float32(float64(dy[1]) * m / (v * v))
		dx[imin] += float32(-float64(dy[1]) / v)
	}
	if !(c > 0) {
		return
	}
	// N = p[a] - p[b] with (a, b) = (g, b), (b, r), (r, g) for a maximum
	// in r, g, b.
	a, b := (imax+1)%3, (imax+2)%3
	n := float64(p[a]) - float64(p[b])
	dh := float64(dy[0]) / (6 * c)
	dx[a] += float32(dh)
	dx[b] -= float32(dh)
	// dC = dV - dmin: -N / (6C^2) times it.
	k := -dh * n / c
	dx[imax] += float32(k)
	dx[imin] -= float32(k)
}

func clip01(v float32) float32 { return min(max(v, 0), 1) }

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// hsvChannels returns TensorFlow's (dr, dg, db) for dh = 6h.
func hsvChannels(dh float32) (float32, float32, float32) {
	return clip01(abs32(dh-3) - 1), clip01(-abs32(dh-2) + 2), clip01(-abs32(dh-4) + 2)
}

func hsvToRGB(o, p []float32) {
	h, s, v := p[0], p[1], p[2]
	dr, dg, db := hsvChannels(h * 6)
	oneS := -s + 1
	// float32(...) rounds each product (no fused multiply-add), as
	// TensorFlow's kernel does.
	o[0] = (oneS + float32(s*dr)) * v
	o[1] = (oneS + float32(s*dg)) * v
	o[2] = (oneS + float32(s*db)) * v
}

// slope returns d clip(u)/du times du/d(dh) for u = sgn*|dh-c| + off:
// zero outside (0, 1) and where |dh-c| has no slope.
func slope(dh, c, sgn, off float32) float64 {
	u := sgn*abs32(dh-c) + off
	if !(u > 0 && u < 1) || dh == c {
		return 0
	}
	if dh > c {
		return float64(sgn)
	}
	return float64(-sgn)
}

func hsvToRGBGrad(dx, p, dy []float32) {
	h, s, v := p[0], p[1], p[2]
	dh := h * 6
	d := [3]float32{}
	d[0], d[1], d[2] = hsvChannels(dh)
	sl := [3]float64{slope(dh, 3, 1, -1), slope(dh, 2, -1, 2), slope(dh, 4, -1, 2)}
	var gh, gs, gv float64
	for i := range 3 {
		g := float64(dy[i])
		gv += g * float64(1-s+s*d[i])
		gs += g * float64(d[i]-1) * float64(v)
		gh += g * float64(s) * float64(v) * sl[i] * 6
	}
	dx[0], dx[1], dx[2] = float32(gh), float32(gs), float32(gv)
}
