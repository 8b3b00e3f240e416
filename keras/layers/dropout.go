package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Dropout is keras.layers.Dropout: in training, zero inputs with
// probability rate and scale the rest by 1/(1-rate); in inference, identity.
// With a noise shape, one draw covers every entry along the axes where
// the noise shape is 1: EfficientNet's Dropout(noise_shape=(None, 1, 1,
// 1)) drops whole samples of a residual branch (drop connect).
type Dropout struct {
	Base
	seedGen
	rate       float64
	noiseShape []int // with the batch; None (-1) takes the input's size; nil: the input's shape
}

// NewDropout makes a Dropout layer. Options: WithSeed, WithNoiseShape,
// WithName. Masks come from the layer's seed generator (see [Seeded]),
// whose state checkpoints save.
func NewDropout(rate float64, opts ...Option) *Dropout {
	l := &Dropout{rate: rate}
	l.init("Dropout", []string{"seed", "noise_shape"}, opts)
	l.initSeed(&l.Base)
	if (rate < 0 || rate >= 1) && l.err == nil {
		l.err = fmt.Errorf("layers: Dropout %q: rate must be in [0, 1), got %v", l.name, rate)
	}
	if l.cfg.set["noise_shape"] {
		l.noiseShape = append([]int{}, l.cfg.noiseShape...)
		for _, d := range l.noiseShape {
			if (d < 1 && d != None) && l.err == nil {
				l.err = fmt.Errorf("layers: Dropout %q: noise_shape %v: want sizes > 0 or None (-1)", l.name, l.noiseShape)
			}
		}
	}
	return l
}

// WithNoiseShape sets Dropout's noise_shape, the shape of its random mask
// with the batch first: None (-1) takes the input's size there, a 1
// shares one draw along that axis, as Keras' noise_shape=(None, 1, 1, 1).
func WithNoiseShape(dims ...int) Option {
	return func(c *config) { c.noiseShape = append([]int{}, dims...); c.mark("noise_shape") }
}

// NoiseShape returns the noise shape (None as -1), nil when the mask has
// the input's shape.
func (l *Dropout) NoiseShape() []int { return append([]int(nil), l.noiseShape...) }

// Build implements Layer.
func (l *Dropout) Build(in []ops.Shape) error {
	if l.noiseShape != nil && len(in) == 1 && len(in[0]) != len(l.noiseShape) {
		return fmt.Errorf("noise_shape %v does not have the rank of the input %v", l.noiseShape, in[0])
	}
	if l.rate > 0 {
		l.generator(l.name)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Dropout) Call(in []ops.Tensor, training bool) ops.Tensor {
	if !training || l.rate == 0 {
		return in[0]
	}
	x := in[0]
	if l.noiseShape == nil {
		return ops.SeededDropout(x, float32(l.rate), l.generator(l.name))
	}
	s := x.Shape()
	if len(s) != len(l.noiseShape) {
		panic(&ops.Error{Op: "Dropout " + l.name, Msg: fmt.Sprintf("noise_shape %v does not have the rank of the input %v", l.noiseShape, s)})
	}
	noise := make(ops.Shape, len(s))
	for i, d := range l.noiseShape {
		switch {
		case d == None:
			noise[i] = s[i]
		case d == s[i] || d == 1:
			noise[i] = d
		default:
			panic(&ops.Error{Op: "Dropout " + l.name, Msg: fmt.Sprintf("noise_shape %v does not broadcast to the input %v", l.noiseShape, s)})
		}
	}
	if noise.Equal(s) {
		return ops.SeededDropout(x, float32(l.rate), l.generator(l.name))
	}
	// The mask: the dropout of ones of the noise shape (0 or 1/(1-rate)),
	// broadcast over the input.
	ones := make([]float32, noise.Size())
	for i := range ones {
		ones[i] = 1
	}
	mask := ops.SeededDropout(x.Trace().Constant(noise, ones), float32(l.rate), l.generator(l.name))
	return ops.Mul(x, mask)
}

// GetConfig implements Layer.
func (l *Dropout) GetConfig() map[string]any {
	m := l.baseConfig()
	m["rate"] = l.rate
	m["noise_shape"] = nil
	if l.noiseShape != nil {
		ns := make([]any, len(l.noiseShape))
		for i, d := range l.noiseShape {
			if d != None {
				ns[i] = d
			}
		}
		m["noise_shape"] = ns
	}
	m["seed"] = nil
	if l.cfg.hasSeed {
		m["seed"] = l.cfg.seed
	}
	return m
}
