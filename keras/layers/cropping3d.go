package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Cropping3D is keras.layers.Cropping3D: it removes the edges of the three
// spatial axes of each (batch, depth, height, width, channels) volume.
type Cropping3D struct {
	Base
	crop edges
}

// NewCropping3D makes a Cropping3D layer, Keras'
// cropping=((front, back), (top, bottom), (left, right)) (Keras' default is
// 1 everywhere). Options: WithName, WithInputShape, WithDataFormat
// ("channels_last").
func NewCropping3D(cropping [3][2]int, opts ...Option) *Cropping3D {
	l := &Cropping3D{crop: edges{cropping[0], cropping[1], cropping[2]}}
	l.init("Cropping3D", nil, opts)
	if err := l.crop.check("Cropping3D", "cropping", l.name); err != nil && l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *Cropping3D) Build(in []ops.Shape) error {
	if err := l.crop.checkShape(in, true); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Cropping3D) Call(in []ops.Tensor, _ bool) ops.Tensor { return l.crop.crop(l, in[0]) }

// GetConfig implements Layer.
func (l *Cropping3D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["cropping"] = l.crop.config()
	m["data_format"] = "channels_last"
	return m
}
