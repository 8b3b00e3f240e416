package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// ZeroPadding3D is keras.layers.ZeroPadding3D: zeros around the three
// spatial axes of each (batch, depth, height, width, channels) volume.
type ZeroPadding3D struct {
	Base
	pad edges
}

// NewZeroPadding3D makes a ZeroPadding3D layer, Keras'
// padding=((front, back), (top, bottom), (left, right)) (Keras' default is 1
// everywhere). Options: WithName, WithInputShape, WithDataFormat
// ("channels_last").
func NewZeroPadding3D(padding [3][2]int, opts ...Option) *ZeroPadding3D {
	l := &ZeroPadding3D{pad: edges{padding[0], padding[1], padding[2]}}
	l.init("ZeroPadding3D", nil, opts)
	if err := l.pad.check("ZeroPadding3D", "padding", l.name); err != nil && l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *ZeroPadding3D) Build(in []ops.Shape) error {
	if err := l.pad.checkShape(in, false); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *ZeroPadding3D) Call(in []ops.Tensor, _ bool) ops.Tensor { return l.pad.pad(l, in[0]) }

// GetConfig implements Layer.
func (l *ZeroPadding3D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["padding"] = l.pad.config()
	m["data_format"] = "channels_last"
	return m
}
