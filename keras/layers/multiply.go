package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Multiply is keras.layers.Multiply: the elementwise product of its
// inputs, which must have equal shapes (or broadcast, as in Keras).
type Multiply struct{ Base }

// NewMultiply makes a Multiply layer. Options: WithName.
func NewMultiply(opts ...Option) *Multiply {
	l := &Multiply{}
	l.init("Multiply", nil, opts)
	return l
}

// Build implements Layer.
func (l *Multiply) Build(in []ops.Shape) error {
	if len(in) < 2 {
		return fmt.Errorf("needs at least 2 inputs, got %d", len(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Multiply) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if len(in) < 2 {
		panic(&ops.Error{Op: "Multiply " + l.name, Msg: fmt.Sprintf("needs at least 2 inputs, got %d", len(in))})
	}
	y := in[0]
	for _, x := range in[1:] {
		y = ops.Mul(y, x)
	}
	return y
}

// GetConfig implements Layer.
func (l *Multiply) GetConfig() map[string]any { return l.baseConfig() }

// MultiplyTensors is keras.layers.multiply: Apply(NewMultiply(), inputs...).
func MultiplyTensors(inputs ...*KerasTensor) *KerasTensor { return Apply(NewMultiply(), inputs...) }
