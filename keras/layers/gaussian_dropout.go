package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// GaussianDropout is keras.layers.GaussianDropout: in training, it
// multiplies its input by noise drawn from a normal distribution of mean 1
// and standard deviation sqrt(rate / (1 - rate)); in inference it is the
// identity.
type GaussianDropout struct {
	Base
	seedGen
	rate float64
}

// NewGaussianDropout makes a GaussianDropout layer; rate must be in [0, 1],
// as Keras checks (a rate of 1 fails when the layer trains, as in Keras,
// whose standard deviation is then infinite). Options: WithSeed, WithName.
func NewGaussianDropout(rate float64, opts ...Option) *GaussianDropout {
	l := &GaussianDropout{rate: rate}
	l.init("GaussianDropout", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if !(rate >= 0 && rate <= 1) && l.err == nil {
		l.err = fmt.Errorf("layers: GaussianDropout %q: rate must be in [0, 1], got %v", l.name, rate)
	}
	return l
}

// Build implements Layer.
func (l *GaussianDropout) Build([]ops.Shape) error {
	if l.rate > 0 {
		l.generator(l.name)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *GaussianDropout) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	if !training || l.rate == 0 {
		return x
	}
	if l.rate >= 1 {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (GaussianDropout)", l.name), Msg: "rate 1 gives noise of infinite standard deviation sqrt(rate / (1 - rate))"})
	}
	stddev := math.Sqrt(l.rate / (1 - l.rate))
	return ops.Mul(x, ops.RandomNormal(x.Trace(), x.Shape(), 1, float32(stddev), l.generator(l.name)))
}

// GetConfig implements Layer.
func (l *GaussianDropout) GetConfig() map[string]any {
	m := l.baseConfig()
	m["rate"] = l.rate
	m["seed"] = seedConfig(l.cfg)
	return m
}
