package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Masking is keras.layers.Masking: a timestep of a (batch, timesteps,
// features...) input whose features all equal mask_value is masked: its
// output is zeroed and the recurrent layers after it skip it (see [Mask]).
//
//	keras.layers.Masking(mask_value=0.0)  ->  layers.NewMasking(layers.WithMaskValue(0))
type Masking struct {
	Base
}

// NewMasking makes a Masking layer. Options: WithMaskValue (default 0),
// WithInputShape, WithName.
func NewMasking(opts ...Option) *Masking {
	l := &Masking{}
	l.init("Masking", []string{"mask_value"}, opts)
	return l
}

// Build implements Layer.
func (l *Masking) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) < 3 {
		return fmt.Errorf("needs one input of shape (batch, timesteps, features...), got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Masking) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	if x.Rank() < 3 {
		checkRank(l, x, 3)
	}
	m := notEqualMask(x, float32(l.cfg.rnn.maskValue)) // (batch, timesteps)
	s := x.Shape()
	ms := ops.Shape{s[0], s[1]}
	for range s[2:] {
		ms = append(ms, 1)
	}
	y := ops.Mul(x, ops.Reshape(m, ms))
	SetMask(y, m)
	return y
}

// GetConfig implements Layer.
func (l *Masking) GetConfig() map[string]any {
	m := l.baseConfig()
	m["mask_value"] = l.cfg.rnn.maskValue
	return m
}
