package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Softmax is keras.layers.Softmax over the last axis.
type Softmax struct{ Base }

// NewSoftmax makes a Softmax layer. WithAxis accepts -1 (the last axis) only.
func NewSoftmax(opts ...Option) *Softmax {
	l := &Softmax{}
	l.init("Softmax", []string{"axis"}, opts)
	return l
}

// Build implements Layer.
func (l *Softmax) Build(in []ops.Shape) error {
	if l.cfg.set["axis"] && l.cfg.axis != -1 && l.cfg.axis != len(in[0])-1 {
		return errUnsupportedAxis(l.cfg.axis)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Softmax) Call(in []ops.Tensor, _ bool) ops.Tensor { return ops.Softmax(in[0]) }

// GetConfig implements Layer.
func (l *Softmax) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = -1
	return m
}
