package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// ZeroPadding1D is keras.layers.ZeroPadding1D: steps of zeros before and
// after each (batch, steps, channels) sequence.
type ZeroPadding1D struct {
	Base
	pad edges
}

// NewZeroPadding1D makes a ZeroPadding1D layer adding left steps before
// and right after, Keras' padding=(left, right) (Keras' default is 1 on
// both sides). Options: WithName, WithInputShape.
func NewZeroPadding1D(left, right int, opts ...Option) *ZeroPadding1D {
	l := &ZeroPadding1D{pad: edges{{left, right}}}
	l.init("ZeroPadding1D", nil, opts)
	if err := l.pad.check("ZeroPadding1D", "padding", l.name); err != nil && l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *ZeroPadding1D) Build(in []ops.Shape) error {
	if err := l.pad.checkShape(in, false); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *ZeroPadding1D) Call(in []ops.Tensor, _ bool) ops.Tensor { return l.pad.pad(l, in[0]) }

// GetConfig implements Layer.
func (l *ZeroPadding1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["padding"] = l.pad.config()
	m["data_format"] = "channels_last"
	return m
}
