package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Cropping1D is keras.layers.Cropping1D: it removes steps at the start and
// the end of each (batch, steps, channels) sequence.
type Cropping1D struct {
	Base
	crop edges
}

// NewCropping1D makes a Cropping1D layer removing start steps before and
// end after, Keras' cropping=(start, end) (Keras' default is (1, 1)).
// Options: WithName, WithInputShape.
func NewCropping1D(start, end int, opts ...Option) *Cropping1D {
	l := &Cropping1D{crop: edges{{start, end}}}
	l.init("Cropping1D", nil, opts)
	if err := l.crop.check("Cropping1D", "cropping", l.name); err != nil && l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *Cropping1D) Build(in []ops.Shape) error {
	if err := l.crop.checkShape(in, true); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Cropping1D) Call(in []ops.Tensor, _ bool) ops.Tensor { return l.crop.crop(l, in[0]) }

// GetConfig implements Layer.
func (l *Cropping1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["cropping"] = l.crop.config()
	return m
}
