package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// UpSampling3D is keras.layers.UpSampling3D: each voxel of a (batch, depth,
// height, width, channels) volume is repeated size[0], size[1] and size[2]
// times along the three spatial axes.
type UpSampling3D struct {
	Base
	size [3]int
}

// NewUpSampling3D makes an UpSampling3D layer (Keras' default size is
// (2, 2, 2)). Options: WithName, WithInputShape, WithDataFormat
// ("channels_last").
func NewUpSampling3D(depth, height, width int, opts ...Option) *UpSampling3D {
	l := &UpSampling3D{size: [3]int{depth, height, width}}
	l.init("UpSampling3D", nil, opts)
	if (depth <= 0 || height <= 0 || width <= 0) && l.err == nil {
		l.err = fmt.Errorf("layers: UpSampling3D %q: size must be positive, got %v", l.name, l.size)
	}
	return l
}

// Build implements Layer.
func (l *UpSampling3D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 5 {
		return fmt.Errorf("needs one rank-5 (batch, depth, height, width, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *UpSampling3D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 5)
	for d, n := range l.size {
		x = repeatAxis(x, 1+d, n)
	}
	return x
}

// GetConfig implements Layer.
func (l *UpSampling3D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["size"] = intsAny(l.size[:])
	m["data_format"] = "channels_last"
	return m
}
