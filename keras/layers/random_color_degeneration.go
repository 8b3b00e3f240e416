package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// RandomColorDegenerationSettings are the arguments of
// keras.layers.RandomColorDegeneration. The zero value draws factor 0
// (no change) in Keras' value range (0, 255).
type RandomColorDegenerationSettings struct {
	// Factor f, one number in [-1, 1]: factors drawn in [-|f|, |f|] (the
	// base class's bounds (-1, 1), as Keras 3.15.1 reads one number).
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair (sorted). It
	// replaces Factor.
	Range *[2]float64
	// ValueRange clips the outputs (nil: (0, 255)); sorted.
	ValueRange *[2]float64
}

// RandomColorDegeneration is keras.layers.RandomColorDegeneration for
// NHWC RGB images (rank 4, or rank 3 for one image): in training each
// image gets a factor f drawn uniformly in the factor range from the
// layer's seed generator and becomes x + f * (gray - x), gray its
// grayscale (0.2989 r + 0.5870 g + 0.1140 b), clipped to the value
// range: f = 1 is gray, a negative f moves away from gray. In inference
// it is the identity.
//
// Python: keras.layers.RandomColorDegeneration(factor, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomColorDegeneration(layers.RandomColorDegenerationSettings{Factor: 0.5})
type RandomColorDegeneration struct {
	Base
	seedGen
	factor [2]float64
	vr     [2]float64
}

// NewRandomColorDegeneration makes a RandomColorDegeneration layer.
// Options: WithSeed, WithName, WithInputShape.
func NewRandomColorDegeneration(s RandomColorDegenerationSettings, opts ...Option) *RandomColorDegeneration {
	l := &RandomColorDegeneration{}
	l.init("RandomColorDegeneration", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	f, err := parseFactor("RandomColorDegeneration", l.name, "factor", s.Factor, s.Range, -1, 1)
	vr, err2 := parseValueRange("RandomColorDegeneration", l.name, s.ValueRange, true, false)
	l.factor, l.vr = f, vr
	if l.err == nil {
		l.err = firstErr(err, err2)
	}
	return l
}

// Build implements Layer.
func (l *RandomColorDegeneration) Build(in []ops.Shape) error {
	if err := buildColorImage(in, 3); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomColorDegeneration) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		f := drawPerImage(x, ops.Shape{x.Shape()[0], 1, 1, 1}, float32(l.factor[0]), float32(l.factor[1]), l.generator(l.name))
		return degenerateImages(x, f, l.vr)
	})
}

// degenerateImages is Keras' transform_images for factors (batch, 1, 1,
// 1).
func degenerateImages(x, factor ops.Tensor, vr [2]float64) ops.Tensor {
	y := ops.Add(x, ops.Mul(factor, ops.Sub(grayscale(x), x)))
	return ops.Clip(y, float32(vr[0]), float32(vr[1]))
}

// GetConfig implements Layer.
func (l *RandomColorDegeneration) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfig(l.factor)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
