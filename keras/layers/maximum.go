package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Maximum is keras.layers.Maximum: the elementwise maximum of its inputs,
// which must have equal shapes (or broadcast, as in Keras). Where inputs
// tie, the gradient goes to the first of them, as TensorFlow's maximum.
type Maximum struct{ Base }

// NewMaximum makes a Maximum layer. Options: WithName.
func NewMaximum(opts ...Option) *Maximum {
	l := &Maximum{}
	l.init("Maximum", nil, opts)
	return l
}

// Build implements Layer.
func (l *Maximum) Build(in []ops.Shape) error {
	if err := checkMergeArity("Maximum", len(in), 1, 0); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Maximum) Call(in []ops.Tensor, _ bool) ops.Tensor {
	mergeCall(l, in, 1, 0)
	y := in[0]
	for _, x := range in[1:] {
		y = ops.Maximum(y, x)
	}
	return y
}

// GetConfig implements Layer.
func (l *Maximum) GetConfig() map[string]any { return l.baseConfig() }

// MaximumTensors is keras.layers.maximum: Apply(NewMaximum(), inputs...).
func MaximumTensors(inputs ...*KerasTensor) *KerasTensor { return Apply(NewMaximum(), inputs...) }
