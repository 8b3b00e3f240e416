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
	rate float64
}

// NewAlphaDropout makes an AlphaDropout layer; rate must be in [0, 1], as
// Keras checks. Options: WithSeed, WithName.
func NewAlphaDropout(rate float64, opts ...Option) *AlphaDropout {
	l := &AlphaDropout{rate: rate}
	l.init("AlphaDropout", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if !(rate >= 0 && rate <= 1) && l.err == nil {
		l.err = fmt.Errorf("layers: AlphaDropout %q: rate must be in [0, 1], got %v", l.name, rate)
	}
	return l
}

// Build implements Layer.
func (l *AlphaDropout) Build([]ops.Shape) error {
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
	u := ops.RandomUniform(tr, x.Shape(), 0, 1, l.generator(l.name))
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
	return m
}
