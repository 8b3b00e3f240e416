package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Concatenate is keras.layers.Concatenate: its inputs joined along axis
// (default -1, the channels). The inputs must agree on every other
// dimension.
type Concatenate struct {
	Base
	axis int
}

// NewConcatenate makes a Concatenate layer. Options: WithAxis (default -1),
// WithName.
func NewConcatenate(opts ...Option) *Concatenate {
	l := &Concatenate{axis: -1}
	l.init("Concatenate", []string{"axis"}, opts)
	if l.cfg.set["axis"] {
		l.axis = l.cfg.axis
	}
	return l
}

// Build implements Layer.
func (l *Concatenate) Build(in []ops.Shape) error {
	if len(in) < 1 {
		return fmt.Errorf("needs at least 1 input, got %d", len(in))
	}
	r := len(in[0])
	if a := l.axis; a >= r || a < -r {
		return fmt.Errorf("axis %d is out of range for inputs of rank %d", l.axis, r)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Concatenate) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if len(in) < 1 {
		panic(&ops.Error{Op: "Concatenate " + l.name, Msg: "needs at least 1 input, got 0"})
	}
	return ops.Concat(l.axis, in...)
}

// GetConfig implements Layer.
func (l *Concatenate) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = l.axis
	return m
}

// ConcatenateTensors is keras.layers.concatenate:
// Apply(NewConcatenate(WithAxis(axis)), inputs...).
func ConcatenateTensors(axis int, inputs ...*KerasTensor) *KerasTensor {
	return Apply(NewConcatenate(WithAxis(axis)), inputs...)
}
