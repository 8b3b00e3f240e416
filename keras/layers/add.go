package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Add is keras.layers.Add: the elementwise sum of its inputs, which must
// have equal shapes (or broadcast, as in Keras).
type Add struct{ Base }

// NewAdd makes an Add layer.
func NewAdd(opts ...Option) *Add {
	l := &Add{}
	l.init("Add", nil, opts)
	return l
}

// Build implements Layer.
func (l *Add) Build(in []ops.Shape) error {
	if len(in) < 2 {
		return fmt.Errorf("needs at least 2 inputs, got %d", len(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Add) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if len(in) < 2 {
		panic(&ops.Error{Op: "Add " + l.name, Msg: fmt.Sprintf("needs at least 2 inputs, got %d", len(in))})
	}
	y := in[0]
	for _, x := range in[1:] {
		y = ops.Add(y, x)
	}
	return y
}

// GetConfig implements Layer.
func (l *Add) GetConfig() map[string]any { return l.baseConfig() }

// AddTensors is keras.layers.add: Apply(NewAdd(), inputs...).
func AddTensors(inputs ...*KerasTensor) *KerasTensor { return Apply(NewAdd(), inputs...) }
