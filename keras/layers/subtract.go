package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Subtract is keras.layers.Subtract: its first input minus its second,
// which must have equal shapes (or broadcast, as in Keras).
type Subtract struct{ Base }

// NewSubtract makes a Subtract layer. Options: WithName.
func NewSubtract(opts ...Option) *Subtract {
	l := &Subtract{}
	l.init("Subtract", nil, opts)
	return l
}

// Build implements Layer.
func (l *Subtract) Build(in []ops.Shape) error {
	if err := checkMergeArity("Subtract", len(in), 2, 2); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Subtract) Call(in []ops.Tensor, _ bool) ops.Tensor {
	mergeCall(l, in, 2, 2)
	return ops.Sub(in[0], in[1])
}

// GetConfig implements Layer.
func (l *Subtract) GetConfig() map[string]any { return l.baseConfig() }

// SubtractTensors is keras.layers.subtract: Apply(NewSubtract(), a, b).
func SubtractTensors(a, b *KerasTensor) *KerasTensor { return Apply(NewSubtract(), a, b) }
