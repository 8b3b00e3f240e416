package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomRotationSettings are the arguments of keras.layers.RandomRotation
// beside the factor. The zero value: fill mode "reflect", fill value 0 and
// bilinear interpolation, as Keras.
type RandomRotationSettings struct {
	// FillMode is "reflect" (the default), "wrap", "nearest" or
	// "constant".
	FillMode string
	// FillValue fills outside the image in "constant" mode.
	FillValue float64
	// Interpolation is "bilinear" (the default) or "nearest".
	Interpolation string
}

// RandomRotation is keras.layers.RandomRotation for NHWC images (bilinear or
// nearest interpolation): in training each image is rotated about its
// center by an angle uniform in [factor[0], factor[1]] full turns, the
// pixels sampled outside the image filled by the fill mode, as
// TensorFlow's ImageProjectiveTransform. In inference it is the identity.
// The draws come from the layer's seed generator (gokeras' stream); a
// range of one value is deterministic and equal to Keras'.
//
// Python: keras.layers.RandomRotation(factor=(-0.1, 0.2))
// Go:     layers.NewRandomRotation([2]float64{-0.1, 0.2}, layers.RandomRotationSettings{})
//
// Keras' single number f means the range (-f, f).
type RandomRotation struct {
	Base
	seedGen
	factor [2]float64
	s      RandomRotationSettings
}

// NewRandomRotation makes a RandomRotation layer. Options: WithSeed,
// WithName, WithInputShape.
func NewRandomRotation(factor [2]float64, s RandomRotationSettings, opts ...Option) *RandomRotation {
	if s.FillMode == "" {
		s.FillMode = "reflect"
	}
	if s.Interpolation == "" {
		s.Interpolation = "bilinear"
	}
	l := &RandomRotation{factor: [2]float64{min(factor[0], factor[1]), max(factor[0], factor[1])}, s: s}
	l.init("RandomRotation", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	switch {
	case l.err != nil:
	case !(l.factor[0] >= -1 && l.factor[1] <= 1):
		l.err = fmt.Errorf("layers: RandomRotation %q: factor must be in [-1, 1], got %v", l.name, factor)
	case s.Interpolation != "nearest" && s.Interpolation != "bilinear":
		l.err = fmt.Errorf("layers: RandomRotation %q: interpolation %q is not supported: \"bilinear\" or \"nearest\"", l.name, s.Interpolation)
	case s.FillMode != "reflect" && s.FillMode != "wrap" && s.FillMode != "nearest" && s.FillMode != "constant":
		l.err = fmt.Errorf("layers: RandomRotation %q: fill_mode %q is not one of reflect, wrap, nearest, constant", l.name, s.FillMode)
	}
	return l
}

// Build implements Layer.
func (l *RandomRotation) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomRotation) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		f := [2]float32{float32(l.factor[0]), float32(l.factor[1])}
		return ops.SeededRandomRotation(x, f, l.s.FillMode, float32(l.s.FillValue), l.s.Interpolation, l.generator(l.name))
	})
}

// GetConfig implements Layer.
func (l *RandomRotation) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = []any{l.factor[0], l.factor[1]}
	m["fill_mode"] = l.s.FillMode
	m["fill_value"] = l.s.FillValue
	m["interpolation"] = l.s.Interpolation
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
