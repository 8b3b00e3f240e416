package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// AlphaDropout is keras.layers.AlphaDropout: in training, a dropout that
// keeps the mean and variance of its inputs, for self-normalizing networks
// (SELU): dropped values are set to SELU's negative saturation
// alpha' = -scale·alpha, then every value is mapped to a·x + b with
// a = ((1-rate)(1+rate·alpha'²))^(-1/2) and b = -a·alpha'·rate. In
// inference it is the identity.
type AlphaDropout struct {
	Base
	seedGen
	rate       float64
	noiseShape []int // nil: the input's; None (-1): the input's size there
}

// NewAlphaDropout makes an AlphaDropout layer; rate must be in [0, 1], as
// Keras checks. Options: WithNoiseShape (the mask's shape, batch first: a
// 1 shares one draw along that axis, None the input's size), WithSeed,
// WithName.
func NewAlphaDropout(rate float64, opts ...Option) *AlphaDropout {
	l := &AlphaDropout{rate: rate}
	l.init("AlphaDropout", []string{"seed", "noise_shape"}, opts)
	l.initSeed(&l.Base)
	if !(rate >= 0 && rate <= 1) && l.err == nil {
		l.err = fmt.Errorf("layers: AlphaDropout %q: rate must be in [0, 1], got %v", l.name, rate)
	}
	if l.cfg.set["noise_shape"] {
		l.noiseShape = append([]int{}, l.cfg.noiseShape...)
		for _, d := range l.noiseShape {
			if d < 1 && d != None && l.err == nil {
				l.err = fmt.Errorf("layers: AlphaDropout %q: noise_shape %v: want sizes > 0 or None (-1)", l.name, l.noiseShape)
			}
		}
	}
	return l
}

// noise is the concrete mask shape for input shape s.
func (l *AlphaDropout) noise(s ops.Shape) (ops.Shape, error) {
	if l.noiseShape == nil {
		return s, nil
	}
	if len(l.noiseShape) != len(s) {
		return nil, fmt.Errorf("noise_shape %v does not have the rank of the input %v", l.noiseShape, s)
	}
	n := make(ops.Shape, len(s))
	for i, d := range l.noiseShape {
		switch {
		case d == None:
			n[i] = s[i]
		case d == s[i] || d == 1 || s[i] < 0:
			n[i] = d
		default:
			return nil, fmt.Errorf("noise_shape %v does not broadcast to the input %v", l.noiseShape, s)
		}
	}
	return n, nil
}

// Build implements Layer.
func (l *AlphaDropout) Build(in []ops.Shape) error {
	if len(in) == 1 {
		if _, err := l.noise(in[0]); err != nil {
			return err
		}
	}
	if l.rate > 0 {
		l.generator(l.name)
	}
	l.built = true
	return nil
}

// SELU's constants, as Keras' AlphaDropout writes them.
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// Call implements Layer.
func (l *AlphaDropout) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	if !training || l.rate == 0 {
		return x
	}
	tr := x.Trace()
	alphaP := -seluAlpha * seluScale
	a := math.Pow((1-l.rate)*(1+l.rate*alphaP*alphaP), -0.5)
	b := -a * alphaP * l.rate
	noise, err := l.noise(x.Shape())
	if err != nil {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (AlphaDropout)", l.name), Msg: err.Error()})
	}
	u := ops.RandomUniform(tr, noise, 0, 1, l.generator(l.name))
	kept := ops.OneMinus(ops.Greater(tr.Scalar(float32(l.rate)), u)) // u >= rate, as Keras
	y := ops.Add(ops.Mul(x, kept), ops.Scale(ops.OneMinus(kept), float32(alphaP)))
	return ops.AddScalar(ops.Scale(y, float32(a)), float32(b))
}

// GetConfig implements Layer.
func (l *AlphaDropout) GetConfig() map[string]any {
	m := l.baseConfig()
	m["rate"] = l.rate
	m["seed"] = seedConfig(l.cfg)
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
	return m
}
