package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// RandomSaturationSettings are the arguments of
// keras.layers.RandomSaturation. The zero value draws factor 0 (the
// saturation multiplied by 0: gray images) in Keras' value range
// (0, 255).
type RandomSaturationSettings struct {
	// Factor f, one number in [-1, 1]: factors drawn in [-|f|, |f|], as
	// Keras 3.15.1 reads one number (its bounds are the base class's
	// (-1, 1)); a factor u multiplies the saturation by u / (1 - u).
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair (sorted). It
	// replaces Factor.
	Range *[2]float64
	// ValueRange is the range of the values (nil: (0, 255)); sorted.
	ValueRange *[2]float64
}

// RandomSaturation is keras.layers.RandomSaturation for NHWC RGB images
// (rank 4, or rank 3 for one image): in training each image gets a
// factor u drawn uniformly in the factor range from the layer's seed
// generator; the image is converted to HSV as it is (not mapped to
// [0, 1]: the value channel keeps the value range), its saturation is
// multiplied by u / (1 - u + 1e-7) and clipped to the value range, and
// it is converted back to RGB. So u = 0.5 keeps the image, 0 makes it
// gray, and 1 saturates it fully. These are Keras 3.15.1's formulas,
// clip included: with the value range (0, 255) a saturation above 1 is
// kept, and the RGB values then leave the value range (nothing clips
// them). In inference it is the identity.
//
// Python: keras.layers.RandomSaturation(factor, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomSaturation(layers.RandomSaturationSettings{Range: &[2]float64{0.3, 0.7}})
type RandomSaturation struct {
	Base
	seedGen
	factor [2]float64
	vr     [2]float64
}

// NewRandomSaturation makes a RandomSaturation layer. Options: WithSeed,
// WithName, WithInputShape.
func NewRandomSaturation(s RandomSaturationSettings, opts ...Option) *RandomSaturation {
	l := &RandomSaturation{}
	l.init("RandomSaturation", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	f, err := parseFactor("RandomSaturation", l.name, "factor", s.Factor, s.Range, -1, 1)
	vr, err2 := parseValueRange("RandomSaturation", l.name, s.ValueRange, true, false)
	l.factor, l.vr = f, vr
	if l.err == nil {
		l.err = firstErr(err, err2)
	}
	return l
}

// Build implements Layer.
func (l *RandomSaturation) Build(in []ops.Shape) error {
	if err := buildColorImage(in, 3); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomSaturation) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		return saturationImages(x, drawSaturation(x, l.factor, l.generator(l.name)), l.vr)
	})
}

// drawSaturation is Keras' get_random_transformation: per image u / (1
// - u + 1e-7), u uniform in the factor range.
func drawSaturation(x ops.Tensor, factor [2]float64, gen *ops.SeedGenerator) ops.Tensor {
	u := drawPerImage(x, ops.Shape{x.Shape()[0]}, float32(factor[0]), float32(factor[1]), gen)
	return ops.Div(u, ops.AddScalar(ops.OneMinus(u), 1e-7))
}

// saturationImages is Keras' transform_images: the saturation of each
// image times its factor (batch), clipped to the value range.
func saturationImages(x, factor ops.Tensor, vr [2]float64) ops.Tensor {
	hsv := ops.RGBToHSV(x)
	s := ops.Mul(channels(hsv, 1, 1), ops.Reshape(factor, ops.Shape{x.Shape()[0], 1, 1, 1}))
	s = ops.Clip(s, float32(vr[0]), float32(vr[1]))
	return ops.HSVToRGB(ops.Concat(3, channels(hsv, 0, 1), s, channels(hsv, 2, 1)))
}

// GetConfig implements Layer.
func (l *RandomSaturation) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfig(l.factor)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
