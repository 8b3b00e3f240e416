package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// RandomHueSettings are the arguments of keras.layers.RandomHue. The
// zero value shifts no hue (factor 0) in Keras' value range (0, 255).
type RandomHueSettings struct {
	// Factor f, one number in [0, 1]: shift amounts drawn in [0, f].
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair (sorted; lower
	// at most 1, upper at least 0). It replaces Factor.
	Range *[2]float64
	// ValueRange is the range of the values (nil: (0, 255)), kept as
	// given, as Keras does.
	ValueRange *[2]float64
}

// RandomHue is keras.layers.RandomHue for NHWC RGB images (rank 4, or
// rank 3 for one image): in training each image gets an amount a drawn
// uniformly in the factor range and a sign, - or + with probability 1/2
// (two uniform draws per image from the layer's seed generator); its
// values are mapped from the value range to [0, 1], converted to HSV,
// the hue is rotated by a/2 (wrapped once into [0, 1]), and the result,
// converted back to RGB and clipped to [0, 1], is mapped back to the
// value range. So factor 1 rotates hues by up to half a turn either way.
// In inference it is the identity.
//
// Python: keras.layers.RandomHue(factor, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomHue(layers.RandomHueSettings{Factor: 0.2})
type RandomHue struct {
	Base
	seedGen
	factor [2]float64
	vr     [2]float64
}

// NewRandomHue makes a RandomHue layer. Options: WithSeed, WithName,
// WithInputShape.
func NewRandomHue(s RandomHueSettings, opts ...Option) *RandomHue {
	l := &RandomHue{}
	l.init("RandomHue", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	f, err := parseFactor("RandomHue", l.name, "factor", s.Factor, s.Range, 0, 1)
	vr, err2 := parseValueRange("RandomHue", l.name, s.ValueRange, false, true)
	l.factor, l.vr = f, vr
	if l.err == nil {
		l.err = firstErr(err, err2)
	}
	return l
}

// Build implements Layer.
func (l *RandomHue) Build(in []ops.Shape) error {
	if err := buildColorImage(in, 3); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomHue) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		return hueImages(x, drawHue(x, l.factor, l.generator(l.name)), l.vr)
	})
}

// drawHue is Keras' get_random_transformation: per image, -a/2 or a/2
// (the sign first: a draw above 1/2 is negative), a in the factor range.
func drawHue(x ops.Tensor, factor [2]float64, gen *ops.SeedGenerator) ops.Tensor {
	tr, n := x.Trace(), ops.Shape{x.Shape()[0]}
	sign := ops.Select(ops.Greater(ops.RandomUniform(tr, n, 0, 1, gen), tr.Scalar(0.5)), tr.Scalar(-1), tr.Scalar(1))
	a := drawPerImage(x, n, float32(factor[0]), float32(factor[1]), gen)
	return ops.Scale(ops.Mul(sign, a), 0.5)
}

// hueImages is Keras' transform_images: shift (batch) added to the hue
// of each image.
func hueImages(x, shift ops.Tensor, vr [2]float64) ops.Tensor {
	n := x.Shape()[0]
	hsv := ops.RGBToHSV(toValueRange(x, vr, unitRange))
	tr := x.Trace()
	h, sv := channels(hsv, 0, 1), channels(hsv, 1, 2)
	h = ops.Add(h, ops.Reshape(shift, ops.Shape{n, 1, 1, 1}))
	one := tr.Scalar(1)
	h = ops.Select(ops.Greater(h, one), ops.Sub(h, one), h)
	h = ops.Select(ops.Less(h, tr.Scalar(0)), ops.Add(h, one), h)
	y := ops.Clip(ops.HSVToRGB(ops.Concat(3, h, sv)), 0, 1)
	return toValueRange(y, unitRange, vr)
}

// channels returns channels [from, from+count) of NHWC x.
func channels(x ops.Tensor, from, count int) ops.Tensor {
	return ops.Slice(x, []int{0, 0, 0, from}, []int{-1, -1, -1, count})
}

// GetConfig implements Layer.
func (l *RandomHue) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfig(l.factor)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
