package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomBrightnessSettings are the arguments of
// keras.layers.RandomBrightness. The zero value draws no change (factor 0)
// in Keras' value range (0, 255).
type RandomBrightnessSettings struct {
	// Factor f, one number in [-1, 1]: deltas drawn in [-|f|, |f|] (as a
	// fraction of the value range).
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair: deltas drawn in
	// [lower, upper] (sorted). It replaces Factor.
	Range *[2]float64
	// ValueRange is the range of the values: the deltas scale by its
	// width and the outputs are clipped to it in training (nil: (0, 255)).
	ValueRange *[2]float64
}

// RandomBrightness is keras.layers.RandomBrightness for NHWC images (rank
// 4, or rank 3 for one image): in training each image gets one delta
// drawn uniformly in the factor range from the layer's seed generator,
// times the width of the value range, added to every pixel and channel,
// and the result is clipped to the value range. In inference it is the
// identity. The draws are gokeras' (keras.random's distribution, not
// TensorFlow's bits).
//
// Python: keras.layers.RandomBrightness(factor=0.2, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomBrightness(layers.RandomBrightnessSettings{Factor: 0.2})
type RandomBrightness struct {
	Base
	seedGen
	lower, upper float64
	lo, hi       float64
}

// NewRandomBrightness makes a RandomBrightness layer. Options: WithSeed
// (of the layer's seed generator), WithName, WithInputShape.
func NewRandomBrightness(s RandomBrightnessSettings, opts ...Option) *RandomBrightness {
	l := &RandomBrightness{lo: 0, hi: 255}
	l.init("RandomBrightness", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if s.ValueRange != nil {
		l.lo, l.hi = min(s.ValueRange[0], s.ValueRange[1]), max(s.ValueRange[0], s.ValueRange[1])
	}
	var bad bool
	if s.Range != nil {
		l.lower, l.upper = min(s.Range[0], s.Range[1]), max(s.Range[0], s.Range[1])
		bad = !(l.lower <= 1 && l.upper >= -1)
	} else {
		f := max(s.Factor, -s.Factor)
		l.lower, l.upper = max(-f, -1), f
		bad = !(s.Factor >= -1 && s.Factor <= 1)
	}
	switch {
	case l.err != nil:
	case bad:
		l.err = fmt.Errorf("layers: RandomBrightness %q: factor must be a number or a pair in [-1, 1], got %v / %v", l.name, s.Factor, s.Range)
	case !(l.lo <= l.hi) || l.lo-l.lo != 0 || l.hi-l.hi != 0:
		l.err = fmt.Errorf("layers: RandomBrightness %q: value_range %v must be two finite numbers", l.name, [2]float64{l.lo, l.hi})
	}
	return l
}

// Build implements Layer.
func (l *RandomBrightness) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomBrightness) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		tr := x.Trace()
		width := float32(l.hi - l.lo)
		var delta ops.Tensor
		if lo, hi := float32(l.lower), float32(l.upper); lo < hi {
			delta = ops.Scale(ops.RandomUniform(tr, ops.Shape{x.Shape()[0], 1, 1, 1}, lo, hi, l.generator(l.name)), width)
		} else { // one value: the same delta for every image, as Keras draws it
			delta = tr.Scalar(lo * width)
		}
		return ops.Clip(ops.Add(x, delta), float32(l.lo), float32(l.hi))
	})
}

// GetConfig implements Layer.
func (l *RandomBrightness) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = []any{l.lower, l.upper}
	m["value_range"] = []any{l.lo, l.hi}
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
