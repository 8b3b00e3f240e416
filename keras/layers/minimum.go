package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Minimum is keras.layers.Minimum: the elementwise minimum of its inputs,
// which must have equal shapes (or broadcast, as in Keras). Where inputs
// tie, the gradient goes to the first of them, as TensorFlow's minimum.
type Minimum struct{ Base }

// NewMinimum makes a Minimum layer. Options: WithName.
func NewMinimum(opts ...Option) *Minimum {
	l := &Minimum{}
	l.init("Minimum", nil, opts)
	return l
}

// Build implements Layer.
func (l *Minimum) Build(in []ops.Shape) error {
	if err := checkMergeArity("Minimum", len(in), 1, 0); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Minimum) Call(in []ops.Tensor, _ bool) ops.Tensor {
	mergeCall(l, in, 1, 0)
	y := in[0]
	for _, x := range in[1:] {
		y = ops.Minimum(y, x)
	}
	return y
}

// GetConfig implements Layer.
func (l *Minimum) GetConfig() map[string]any { return l.baseConfig() }

// MinimumTensors is keras.layers.minimum: Apply(NewMinimum(), inputs...).
func MinimumTensors(inputs ...*KerasTensor) *KerasTensor { return Apply(NewMinimum(), inputs...) }
