package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Dropout is keras.layers.Dropout: in training, zero inputs with
// probability rate and scale the rest by 1/(1-rate); in inference, identity.
type Dropout struct {
	Base
	seedGen
	rate float64
}

// NewDropout makes a Dropout layer. Options: WithSeed, WithName. Masks
// come from the layer's seed generator (see [Seeded]), whose state
// checkpoints save.
func NewDropout(rate float64, opts ...Option) *Dropout {
	l := &Dropout{rate: rate}
	l.init("Dropout", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if (rate < 0 || rate >= 1) && l.err == nil {
		l.err = fmt.Errorf("layers: Dropout %q: rate must be in [0, 1), got %v", l.name, rate)
	}
	return l
}

// Build implements Layer.
func (l *Dropout) Build([]ops.Shape) error {
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
	return ops.SeededDropout(in[0], float32(l.rate), l.generator(l.name))
}

// GetConfig implements Layer.
func (l *Dropout) GetConfig() map[string]any {
	m := l.baseConfig()
	m["rate"] = l.rate
	m["noise_shape"] = nil
	m["seed"] = nil
	if l.cfg.hasSeed {
		m["seed"] = l.cfg.seed
	}
	return m
}
