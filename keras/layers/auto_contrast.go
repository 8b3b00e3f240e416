package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// AutoContrast is keras.layers.AutoContrast for NHWC images (rank 4, or
// rank 3 for one image): each channel of each image, mapped from the
// value range to 0..255, is stretched linearly so that its minimum
// becomes 0 and its maximum 255 (x * s - min * s, s = 255 / (max - min),
// clipped to [0, 255]), and mapped back. A constant channel (and one
// with a NaN) is passed through: Keras' division gives NaN there, which
// it replaces by the input. It is not random, and as Keras' it applies
// in inference too.
//
// Python: keras.layers.AutoContrast(value_range=(0, 255))
// Go:     layers.NewAutoContrast(nil)
type AutoContrast struct {
	Base
	vr [2]float64
}

// NewAutoContrast makes an AutoContrast layer for values in valueRange
// (nil: (0, 255); sorted). Options: WithName, WithInputShape.
func NewAutoContrast(valueRange *[2]float64, opts ...Option) *AutoContrast {
	l := &AutoContrast{}
	l.init("AutoContrast", nil, opts)
	vr, err := parseValueRange("AutoContrast", l.name, valueRange, true, true)
	l.vr = vr
	if l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *AutoContrast) Build(in []ops.Shape) error {
	if err := buildColorImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *AutoContrast) Call(in []ops.Tensor, _ bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor { return autoContrast(x, l.vr) })
}

// autoContrast is Keras' transform_images. The width max - min is
// replaced by 1 where it is not positive before the division (the
// result is the input there anyway), so that no infinity reaches the
// gradient.
func autoContrast(x ops.Tensor, vr [2]float64) ops.Tensor {
	tr := x.Trace()
	y := toValueRange(x, vr, byteRange)
	low := ops.Neg(ops.Max(ops.Neg(y), true, 1, 2))
	high := ops.Max(y, true, 1, 2)
	width := ops.Sub(high, low)
	stretched := ops.Greater(width, tr.Scalar(0))
	scale := ops.Div(tr.Scalar(255), ops.Select(stretched, width, tr.Scalar(1)))
	offset := ops.Mul(ops.Neg(low), scale)
	z := ops.Clip(ops.Add(ops.Mul(y, scale), offset), 0, 255)
	return ops.Select(stretched, toValueRange(z, byteRange, vr), x)
}

// GetConfig implements Layer.
func (l *AutoContrast) GetConfig() map[string]any {
	m := l.baseConfig()
	m["value_range"] = pairConfig(l.vr)
	m["data_format"] = "channels_last"
	return m
}
