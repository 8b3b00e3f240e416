package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomContrastSettings are the arguments of keras.layers.RandomContrast.
// The zero value draws no change (factor 0) in Keras' value range
// (0, 255).
type RandomContrastSettings struct {
	// Factor f, one number in [0, 1]: contrast factors drawn in
	// [1, 1+f], as Keras 3 reads one number (lower bound max(-f, 0)).
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair: factors drawn in
	// [1-lower, 1+upper]. It replaces Factor.
	Range *[2]float64
	// ValueRange clips the outputs in training (nil: (0, 255)).
	ValueRange *[2]float64
}

// RandomContrast is keras.layers.RandomContrast for NHWC images (rank 4,
// or rank 3 for one image): in training each image gets a factor drawn
// uniformly from the layer's seed generator, and every channel becomes
// (x - mean) * factor + mean (its mean over height and width), clipped
// to the value range. In inference it is the identity. The draws are
// gokeras' (keras.random's distribution, not TensorFlow's bits).
//
// Python: keras.layers.RandomContrast(factor=0.2, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomContrast(layers.RandomContrastSettings{Factor: 0.2})
type RandomContrast struct {
	Base
	seedGen
	lower, upper float64
	lo, hi       float64
}

// NewRandomContrast makes a RandomContrast layer. Options: WithSeed (of
// the layer's seed generator), WithName, WithInputShape.
func NewRandomContrast(s RandomContrastSettings, opts ...Option) *RandomContrast {
	l := &RandomContrast{lo: 0, hi: 255}
	l.init("RandomContrast", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if s.ValueRange != nil {
		l.lo, l.hi = s.ValueRange[0], s.ValueRange[1]
	}
	var bad bool
	if s.Range != nil {
		l.lower, l.upper = min(s.Range[0], s.Range[1]), max(s.Range[0], s.Range[1])
		bad = l.lower > 1 || l.upper < 0 || l.lower != l.lower
	} else {
		l.lower, l.upper = 0, s.Factor
		bad = !(s.Factor >= 0 && s.Factor <= 1)
	}
	switch {
	case l.err != nil:
	case bad:
		l.err = fmt.Errorf("layers: RandomContrast %q: factor must be a number or a pair in [0, 1], got %v / %v", l.name, s.Factor, s.Range)
	case !(l.lo < l.hi):
		l.err = fmt.Errorf("layers: RandomContrast %q: value_range %v must be increasing", l.name, [2]float64{l.lo, l.hi})
	}
	return l
}

// Build implements Layer.
func (l *RandomContrast) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomContrast) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		s := x.Shape()
		lo, hi := float32(1-l.lower), float32(1+l.upper)
		if !(lo < hi) { // factor 1: the images unchanged, but clipped as Keras does
			return ops.Clip(x, float32(l.lo), float32(l.hi))
		}
		f := ops.RandomUniform(x.Trace(), ops.Shape{s[0], 1, 1, 1}, lo, hi, l.generator(l.name))
		mean := ops.Scale(ops.Sum(x, true, 1, 2), 1/float32(s[1]*s[2]))
		y := ops.Add(ops.Mul(ops.Sub(x, mean), f), mean)
		return ops.Clip(y, float32(l.lo), float32(l.hi))
	})
}

// GetConfig implements Layer.
func (l *RandomContrast) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = []any{l.lower, l.upper}
	m["value_range"] = []any{l.lo, l.hi}
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
