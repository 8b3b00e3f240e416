package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomTranslation is keras.layers.RandomTranslation for NHWC images: in
// training each image is shifted by dy rows and dx columns drawn (per
// image, afresh at every step) uniformly from the height range times the
// height and the width range times the width, real amounts read by
// bilinear interpolation (Keras' default) or rounded to the nearest pixel,
// the pixels shifted in from outside filled by fill_mode, as Keras 3's
// affine_transform (TensorFlow's ImageProjectiveTransform). In inference
// it is the identity. The draws come from the layer's seed generator
// (gokeras' stream, not TensorFlow's bits); a range of one value is
// deterministic and equal to Keras'.
//
// Python: keras.layers.RandomTranslation(0.2, (-0.1, 0.3))
// Go:     layers.NewRandomTranslationRange([2]float64{-0.2, 0.2}, [2]float64{-0.1, 0.3})
type RandomTranslation struct {
	Base
	seedGen
	height, width [2]float64
	interpolation string
	fillMode      string
	fillValue     float64
}

// NewRandomTranslation makes a RandomTranslation layer shifting by up to
// the factors (fractions of the height and width, in [0, 1]) either way:
// Keras' RandomTranslation(height_factor, width_factor) of single numbers.
// Options: WithInterpolation ("bilinear", Keras' default, or "nearest"),
// WithFillMode ("reflect", Keras' default, "constant", "wrap",
// "nearest"), WithFillValue (for "constant"; default 0), WithSeed (of the
// layer's seed generator, whose state checkpoints save: see [Seeded]),
// WithName, WithInputShape.
func NewRandomTranslation(heightFactor, widthFactor float64, opts ...Option) *RandomTranslation {
	return newRandomTranslation([2]float64{-heightFactor, heightFactor}, [2]float64{-widthFactor, widthFactor},
		!(heightFactor >= 0 && heightFactor <= 1) || !(widthFactor >= 0 && widthFactor <= 1), opts)
}

// NewRandomTranslationRange is [NewRandomTranslation] with Keras' (lower,
// upper) factors: the shifts are drawn from [lower, upper] times the
// height (or width), within [-1, 1]; a negative height factor shifts up.
func NewRandomTranslationRange(height, width [2]float64, opts ...Option) *RandomTranslation {
	bad := func(p [2]float64) bool { return !(p[0] <= p[1]) || p[0] < -1 || p[1] > 1 }
	return newRandomTranslation(height, width, bad(height) || bad(width), opts)
}

func newRandomTranslation(height, width [2]float64, badFactors bool, opts []Option) *RandomTranslation {
	l := &RandomTranslation{height: height, width: width, fillMode: "reflect", interpolation: "bilinear"}
	l.init("RandomTranslation", []string{"fill_mode", "fill_value", "seed", "interpolation"}, opts)
	l.initSeed(&l.Base)
	if l.cfg.set["fill_mode"] {
		l.fillMode = l.cfg.more.fillMode
	}
	if l.cfg.set["interpolation"] {
		l.interpolation = l.cfg.conv.interpolation
	}
	l.fillValue = l.cfg.more.fillValue
	var err error
	switch {
	case badFactors:
		err = fmt.Errorf("height_factor %v and width_factor %v must be in [0, 1] (ranges: ordered, within [-1, 1])", factorArg(height), factorArg(width))
	case l.interpolation != "bilinear" && l.interpolation != "nearest":
		err = fmt.Errorf("interpolation must be \"bilinear\" or \"nearest\", got %q", l.interpolation)
	case l.fillMode != "reflect" && l.fillMode != "constant" && l.fillMode != "wrap" && l.fillMode != "nearest":
		err = fmt.Errorf("fill_mode must be \"reflect\", \"constant\", \"wrap\" or \"nearest\", got %q", l.fillMode)
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: RandomTranslation %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *RandomTranslation) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// factorArg is a factor as Keras' config writes it: a number for a
// symmetric range, else the pair.
func factorArg(p [2]float64) any {
	if p[0] == -p[1] {
		return p[1]
	}
	return []any{p[0], p[1]}
}

// Call implements Layer.
func (l *RandomTranslation) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training || (l.height == [2]float64{} && l.width == [2]float64{}) {
			return x
		}
		f32 := func(p [2]float64) [2]float32 { return [2]float32{float32(p[0]), float32(p[1])} }
		return ops.SeededRandomTranslationAffine(x, f32(l.height), f32(l.width), l.fillMode, float32(l.fillValue), l.interpolation, l.generator(l.name))
	})
}

// GetConfig implements Layer.
func (l *RandomTranslation) GetConfig() map[string]any {
	m := l.baseConfig()
	m["height_factor"] = factorArg(l.height)
	m["width_factor"] = factorArg(l.width)
	m["fill_mode"] = l.fillMode
	m["fill_value"] = l.fillValue
	m["interpolation"] = l.interpolation
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
