package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// GlobalPooling3D is keras.layers.GlobalAveragePooling3D and
// GlobalMaxPooling3D: the mean or the maximum of each channel over the
// depth, height and width of a (batch, depth, height, width, channels)
// volume.
type GlobalPooling3D struct {
	Base
	max bool
}

func newGlobalPooling3D(class string, isMax bool, opts []Option) *GlobalPooling3D {
	l := &GlobalPooling3D{max: isMax}
	l.init(class, []string{"keepdims"}, opts)
	return l
}

// NewGlobalAveragePooling3D makes a GlobalAveragePooling3D layer. Options:
// WithKeepDims (default false), WithName, WithDataFormat ("channels_last").
func NewGlobalAveragePooling3D(opts ...Option) *GlobalPooling3D {
	return newGlobalPooling3D("GlobalAveragePooling3D", false, opts)
}

// NewGlobalMaxPooling3D makes a GlobalMaxPooling3D layer. Options:
// WithKeepDims (default false), WithName, WithDataFormat ("channels_last").
func NewGlobalMaxPooling3D(opts ...Option) *GlobalPooling3D {
	return newGlobalPooling3D("GlobalMaxPooling3D", true, opts)
}

// Build implements Layer.
func (l *GlobalPooling3D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 5 {
		return fmt.Errorf("needs one rank-5 (batch, depth, height, width, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *GlobalPooling3D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 5)
	if l.max {
		return ops.Max(x, l.cfg.more.keepDims, 1, 2, 3)
	}
	return ops.Mean(x, l.cfg.more.keepDims, 1, 2, 3)
}

// GetConfig implements Layer.
func (l *GlobalPooling3D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["data_format"] = "channels_last"
	m["keepdims"] = l.cfg.more.keepDims
	return m
}
