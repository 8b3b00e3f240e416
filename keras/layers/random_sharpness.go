package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// RandomSharpnessSettings are the arguments of
// keras.layers.RandomSharpness. The zero value draws factor 0 in Keras'
// value range (0, 255).
type RandomSharpnessSettings struct {
	// Factor f, one number in [0, 1]: factors drawn in [0, f].
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair (sorted). It
	// replaces Factor.
	Range *[2]float64
	// ValueRange clips the outputs (nil: (0, 255)); sorted.
	ValueRange *[2]float64
}

// RandomSharpness is keras.layers.RandomSharpness for NHWC images (rank
// 4, or rank 3 for one image): in training each image gets a factor f
// drawn uniformly in the factor range from the layer's seed generator,
// is blurred channel by channel with the 3x3 kernel [1 1 1; 1 5 1;
// 1 1 1] / 13 ("same" zero padding, so the border darkens), and becomes
// x + (1 - 2f) * (blurred - x), clipped to the value range: f = 0.5
// keeps the image, 0 blurs it, 1 sharpens it (2x - blurred). In
// inference it is the identity.
//
// Python: keras.layers.RandomSharpness(factor, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomSharpness(layers.RandomSharpnessSettings{Factor: 0.5})
type RandomSharpness struct {
	Base
	seedGen
	factor [2]float64
	vr     [2]float64
}

// NewRandomSharpness makes a RandomSharpness layer. Options: WithSeed,
// WithName, WithInputShape.
func NewRandomSharpness(s RandomSharpnessSettings, opts ...Option) *RandomSharpness {
	l := &RandomSharpness{}
	l.init("RandomSharpness", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	f, err := parseFactor("RandomSharpness", l.name, "factor", s.Factor, s.Range, 0, 1)
	vr, err2 := parseValueRange("RandomSharpness", l.name, s.ValueRange, true, false)
	l.factor, l.vr = f, vr
	if l.err == nil {
		l.err = firstErr(err, err2)
	}
	return l
}

// Build implements Layer.
func (l *RandomSharpness) Build(in []ops.Shape) error {
	if err := buildColorImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomSharpness) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		f := drawPerImage(x, ops.Shape{x.Shape()[0]}, float32(l.factor[0]), float32(l.factor[1]), l.generator(l.name))
		return sharpenImages(x, f, l.vr)
	})
}

// sharpenImages is Keras' transform_images for factors (batch).
func sharpenImages(x, factor ops.Tensor, vr [2]float64) ops.Tensor {
	c := x.Shape()[3]
	a, b := float32(1.0/13.0), float32(5.0/13.0)
	k := make([]float32, 9*c)
	for i := range 9 {
		for j := range c {
			k[i*c+j] = a
			if i == 4 {
				k[i*c+j] = b
			}
		}
	}
	tr := x.Trace()
	blurred := ops.DepthwiseConv2D(x, tr.Constant(ops.Shape{3, 3, c, 1}, k), ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"})
	f2 := ops.Reshape(ops.Scale(factor, 2), ops.Shape{x.Shape()[0], 1, 1, 1})
	y := ops.Add(x, ops.Mul(ops.OneMinus(f2), ops.Sub(blurred, x)))
	return ops.Clip(y, float32(vr[0]), float32(vr[1]))
}

// GetConfig implements Layer.
func (l *RandomSharpness) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfig(l.factor)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
