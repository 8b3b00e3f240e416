package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomZoomSettings are the arguments of keras.layers.RandomZoom beside
// the height factor. The zero value: width zoomed as the height (Keras'
// width_factor=None), fill mode "reflect", fill value 0 and bilinear
// interpolation, as Keras.
type RandomZoomSettings struct {
	// Width, when not nil, is the width's own (lower, upper) range, drawn
	// independently of the height's.
	Width *[2]float64
	// FillMode is "reflect" (the default), "wrap", "nearest" or
	// "constant".
	FillMode string
	// FillValue fills outside the image in "constant" mode.
	FillValue float64
	// Interpolation is "bilinear" (the default) or "nearest".
	Interpolation string
}

// RandomZoom is keras.layers.RandomZoom for NHWC images (bilinear or nearest
// interpolation): in training each image is zoomed about its center by 1+f
// (f uniform in the height range; the width's own range or the same
// factor), positive f zooming out, the pixels sampled outside the image
// filled by the fill mode, as TensorFlow's ImageProjectiveTransform. In
// inference it is the identity. The draws come from the layer's seed
// generator (gokeras' stream, not TensorFlow's bits); a range of one
// value is deterministic and equal to Keras'.
//
// Python: keras.layers.RandomZoom(height_factor=(-0.2, 0.3))
// Go:     layers.NewRandomZoom([2]float64{-0.2, 0.3}, layers.RandomZoomSettings{})
//
// Keras' single number f means the range (-f, f).
type RandomZoom struct {
	Base
	seedGen
	height [2]float64
	s      RandomZoomSettings
}

// NewRandomZoom makes a RandomZoom layer. Options: WithSeed, WithName,
// WithInputShape.
func NewRandomZoom(height [2]float64, s RandomZoomSettings, opts ...Option) *RandomZoom {
	if s.FillMode == "" {
		s.FillMode = "reflect"
	}
	if s.Interpolation == "" {
		s.Interpolation = "bilinear"
	}
	sortPair := func(p [2]float64) [2]float64 { return [2]float64{min(p[0], p[1]), max(p[0], p[1])} }
	l := &RandomZoom{height: sortPair(height), s: s}
	if s.Width != nil {
		w := sortPair(*s.Width)
		l.s.Width = &w
	}
	l.init("RandomZoom", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	inRange := func(p [2]float64) bool { return p[0] > -1 && p[1] <= 1 }
	switch {
	case l.err != nil:
	case !inRange(l.height) || (l.s.Width != nil && !inRange(*l.s.Width)):
		l.err = fmt.Errorf("layers: RandomZoom %q: factors must be in (-1, 1], got %v and %v", l.name, height, s.Width)
	case s.Interpolation != "nearest" && s.Interpolation != "bilinear":
		l.err = fmt.Errorf("layers: RandomZoom %q: interpolation %q is not supported: \"bilinear\" or \"nearest\"", l.name, s.Interpolation)
	case s.FillMode != "reflect" && s.FillMode != "wrap" && s.FillMode != "nearest" && s.FillMode != "constant":
		l.err = fmt.Errorf("layers: RandomZoom %q: fill_mode %q is not one of reflect, wrap, nearest, constant", l.name, s.FillMode)
	}
	return l
}

// Build implements Layer.
func (l *RandomZoom) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomZoom) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		h := [2]float32{float32(l.height[0]), float32(l.height[1])}
		w, same := h, l.s.Width == nil
		if !same {
			w = [2]float32{float32(l.s.Width[0]), float32(l.s.Width[1])}
		}
		return ops.SeededRandomZoom(x, h, w, same, l.s.FillMode, float32(l.s.FillValue), l.s.Interpolation, l.generator(l.name))
	})
}

// GetConfig implements Layer.
func (l *RandomZoom) GetConfig() map[string]any {
	m := l.baseConfig()
	m["height_factor"] = []any{l.height[0], l.height[1]}
	m["width_factor"] = nil
	if l.s.Width != nil {
		m["width_factor"] = []any{l.s.Width[0], l.s.Width[1]}
	}
	m["fill_mode"] = l.s.FillMode
	m["fill_value"] = l.s.FillValue
	m["interpolation"] = l.s.Interpolation
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
