package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// GaussianNoise is keras.layers.GaussianNoise: in training, it adds noise
// drawn from a normal distribution of mean 0 and standard deviation stddev
// to its input (a regularization, a form of data augmentation); in
// inference it is the identity.
type GaussianNoise struct {
	Base
	seedGen
	stddev float64
}

// NewGaussianNoise makes a GaussianNoise layer; stddev must be in [0, 1],
// as Keras checks. Options: WithSeed, WithName. The noise comes from the
// layer's seed generator (see [Seeded]).
func NewGaussianNoise(stddev float64, opts ...Option) *GaussianNoise {
	l := &GaussianNoise{stddev: stddev}
	l.init("GaussianNoise", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if !(stddev >= 0 && stddev <= 1) && l.err == nil {
		l.err = fmt.Errorf("layers: GaussianNoise %q: stddev must be in [0, 1], got %v", l.name, stddev)
	}
	return l
}

// Build implements Layer.
func (l *GaussianNoise) Build([]ops.Shape) error {
	if l.stddev > 0 {
		l.generator(l.name)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *GaussianNoise) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	if !training || l.stddev == 0 {
		return x
	}
	return ops.Add(x, ops.RandomNormal(x.Trace(), x.Shape(), 0, float32(l.stddev), l.generator(l.name)))
}

// GetConfig implements Layer.
func (l *GaussianNoise) GetConfig() map[string]any {
	m := l.baseConfig()
	m["stddev"] = l.stddev
	m["seed"] = seedConfig(l.cfg)
	return m
}
