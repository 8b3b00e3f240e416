package layers

import "github.com/gokeras/gokeras/ops"

// Flatten is keras.layers.Flatten: (batch, ...) -> (batch, product of the rest).
type Flatten struct{ Base }

// NewFlatten makes a Flatten layer.
func NewFlatten(opts ...Option) *Flatten {
	l := &Flatten{}
	l.init("Flatten", nil, opts)
	return l
}

// Build implements Layer.
func (l *Flatten) Build([]ops.Shape) error { l.built = true; return nil }

// Call implements Layer.
func (l *Flatten) Call(in []ops.Tensor, _ bool) ops.Tensor {
	s := in[0].Shape()
	if len(s) <= 1 {
		return ops.Reshape(in[0], ops.Shape{s.Size(), 1})
	}
	return ops.Reshape(in[0], ops.Shape{s[0], -1})
}

// GetConfig implements Layer.
func (l *Flatten) GetConfig() map[string]any {
	m := l.baseConfig()
	m["data_format"] = "channels_last"
	return m
}
