package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Rescaling is keras.layers.Rescaling: x * scale + offset.
type Rescaling struct {
	Base
	scale float64
}

// NewRescaling makes a Rescaling layer. Options: WithOffset.
func NewRescaling(scale float64, opts ...Option) *Rescaling {
	l := &Rescaling{scale: scale}
	l.init("Rescaling", []string{"offset"}, opts)
	return l
}

// Build implements Layer.
func (l *Rescaling) Build([]ops.Shape) error { l.built = true; return nil }

// Call implements Layer.
func (l *Rescaling) Call(in []ops.Tensor, _ bool) ops.Tensor {
	y := ops.Scale(in[0], float32(l.scale))
	if l.cfg.offset != 0 {
		y = ops.AddScalar(y, float32(l.cfg.offset))
	}
	return y
}

// GetConfig implements Layer.
func (l *Rescaling) GetConfig() map[string]any {
	m := l.baseConfig()
	m["scale"] = l.scale
	m["offset"] = l.cfg.offset
	return m
}

func errUnsupportedAxis(a int) error {
	return fmt.Errorf("axis %d is not supported: only the last axis", a)
}
