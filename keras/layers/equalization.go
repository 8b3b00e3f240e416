package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// EqualizationSettings are the arguments of keras.layers.Equalization.
// The zero value is Keras' default: 256 bins, value range (0, 255).
type EqualizationSettings struct {
	// ValueRange is the range of the values (nil: (0, 255)); sorted.
	ValueRange *[2]float64
	// Bins is the number of histogram bins (0: 256).
	Bins int
}

// Equalization is keras.layers.Equalization for NHWC images (rank 4, or
// rank 3 for one image): in training each channel, mapped from the value
// range to 0..255, is equalized by its histogram of Bins bins, which
// Keras 3.15.1 counts over the whole batch (not per image): each value
// becomes the level, in 0..255, of its bin's share of the cumulative
// count (see [ops.EqualizeHistogram] for Keras' roundings); a channel
// whose values all fall in one bin is passed through. The result is
// mapped back to the value range. In inference it is the identity (as
// Keras', which checks training). Only a channel passed through has a
// gradient.
//
// Python: keras.layers.Equalization(value_range=(0, 255), bins=256)
// Go:     layers.NewEqualization(layers.EqualizationSettings{})
type Equalization struct {
	Base
	vr   [2]float64
	bins int
}

// NewEqualization makes an Equalization layer. Options: WithName,
// WithInputShape.
func NewEqualization(s EqualizationSettings, opts ...Option) *Equalization {
	l := &Equalization{bins: s.Bins}
	if l.bins == 0 {
		l.bins = 256
	}
	l.init("Equalization", nil, opts)
	vr, err := parseValueRange("Equalization", l.name, s.ValueRange, true, true)
	l.vr = vr
	switch {
	case l.err != nil:
	case err != nil:
		l.err = err
	case l.bins < 1 || l.bins > 1<<20:
		l.err = fmt.Errorf("layers: Equalization %q: bins must be in [1, 2^20], got %d", l.name, s.Bins)
	}
	return l
}

// Build implements Layer.
func (l *Equalization) Build(in []ops.Shape) error {
	if err := buildColorImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Equalization) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		return equalize(x, l.vr, l.bins)
	})
}

// equalize is Keras' transform_images. Its scaling to 0..255 and back is
// _scale_values, x * s + o with s and o computed in float64 and rounded
// to float32 (not _transform_value_range's steps); Keras applies it even
// for (0, 255), where it is x * 1 + 0.
func equalize(x ops.Tensor, vr [2]float64, bins int) ops.Tensor {
	scale := func(x ops.Tensor, from, to [2]float64) ops.Tensor {
		s := (to[1] - to[0]) / (from[1] - from[0])
		return ops.AddScalar(ops.Scale(x, float32(s)), float32(to[0]-from[0]*s))
	}
	y := ops.EqualizeHistogram(scale(x, vr, byteRange), bins)
	return scale(y, byteRange, vr)
}

// GetConfig implements Layer.
func (l *Equalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["bins"] = l.bins
	m["value_range"] = pairConfig(l.vr)
	m["data_format"] = "channels_last"
	return m
}
