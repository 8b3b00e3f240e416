package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// RandomInvertSettings are the arguments of keras.layers.RandomInvert.
// The zero value is Keras' default: factor 1 (probabilities drawn in
// [0, 1]) in the value range (0, 255).
type RandomInvertSettings struct {
	// Factor f, one number in [0, 1]: each image's probability of
	// inversion is drawn in [0, f]. Zero means Keras' default 1 unless
	// ZeroFactor is set.
	Factor     float64
	ZeroFactor bool
	// Range, when not nil, is Keras' (lower, upper) pair (sorted). It
	// replaces Factor.
	Range *[2]float64
	// ValueRange is the range of the values (nil: (0, 255)), kept as
	// given: an inverted value is ValueRange[1] - x.
	ValueRange *[2]float64
}

// RandomInvert is keras.layers.RandomInvert for NHWC images (rank 4, or
// rank 3 for one image): in training each image draws a probability p
// uniformly in the factor range and a threshold u uniformly in [0, 1)
// (two draws per image from the layer's seed generator) and is inverted,
// ValueRange[1] - x (Keras' formula: the lower bound plays no part),
// when u < p. So the default factor inverts half the images. In
// inference it is the identity.
//
// Python: keras.layers.RandomInvert(factor=1.0, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomInvert(layers.RandomInvertSettings{})
type RandomInvert struct {
	Base
	seedGen
	factor [2]float64
	vr     [2]float64
}

// NewRandomInvert makes a RandomInvert layer. Options: WithSeed,
// WithName, WithInputShape.
func NewRandomInvert(s RandomInvertSettings, opts ...Option) *RandomInvert {
	l := &RandomInvert{}
	l.init("RandomInvert", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if s.Factor == 0 && !s.ZeroFactor && s.Range == nil {
		s.Factor = 1
	}
	f, err := parseFactor("RandomInvert", l.name, "factor", s.Factor, s.Range, 0, 1)
	vr, err2 := parseValueRange("RandomInvert", l.name, s.ValueRange, false, false)
	l.factor, l.vr = f, vr
	if l.err == nil {
		l.err = firstErr(err, err2)
	}
	return l
}

// Build implements Layer.
func (l *RandomInvert) Build(in []ops.Shape) error {
	if err := buildColorImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomInvert) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		gen, n := l.generator(l.name), ops.Shape{x.Shape()[0]}
		p := drawPerImage(x, n, float32(l.factor[0]), float32(l.factor[1]), gen)
		u := ops.RandomUniform(x.Trace(), n, 0, 1, gen)
		return invertImages(x, ops.Less(u, p), l.vr)
	})
}

// invertImages is Keras' transform_images: the images where apply
// (batch) is 1 become ValueRange[1] - x.
func invertImages(x, apply ops.Tensor, vr [2]float64) ops.Tensor {
	a := ops.Reshape(apply, ops.Shape{x.Shape()[0], 1, 1, 1})
	return ops.Select(a, ops.Sub(x.Trace().Scalar(float32(vr[1])), x), x)
}

// GetConfig implements Layer.
func (l *RandomInvert) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfig(l.factor)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
