package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// globalPooling2D is the shared part of GlobalAveragePooling2D and
// GlobalMaxPooling2D.
type globalPooling2D struct {
	Base
	keepDims bool
}

func (l *globalPooling2D) setup(class string, opts []Option) {
	l.init(class, []string{"keepdims"}, opts)
	l.keepDims = l.cfg.more.keepDims
}

// Build implements Layer.
func (l *globalPooling2D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// GetConfig implements Layer.
func (l *globalPooling2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["data_format"] = "channels_last"
	m["keepdims"] = l.keepDims
	return m
}

// GlobalAveragePooling2D is keras.layers.GlobalAveragePooling2D: the mean
// over height and width, (batch, h, w, c) -> (batch, c), or
// (batch, 1, 1, c) with WithKeepDims(true).
type GlobalAveragePooling2D struct{ globalPooling2D }

// NewGlobalAveragePooling2D makes a global average pooling layer. Options:
// WithKeepDims, WithName.
func NewGlobalAveragePooling2D(opts ...Option) *GlobalAveragePooling2D {
	l := &GlobalAveragePooling2D{}
	l.setup("GlobalAveragePooling2D", opts)
	return l
}

// Call implements Layer.
func (l *GlobalAveragePooling2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 4)
	return ops.Mean(in[0], l.keepDims, 1, 2)
}

// GlobalMaxPooling2D is keras.layers.GlobalMaxPooling2D: the maximum over
// height and width. The gradient goes to the first maximal position.
type GlobalMaxPooling2D struct{ globalPooling2D }

// NewGlobalMaxPooling2D makes a global max pooling layer; options as
// [NewGlobalAveragePooling2D].
func NewGlobalMaxPooling2D(opts ...Option) *GlobalMaxPooling2D {
	l := &GlobalMaxPooling2D{}
	l.setup("GlobalMaxPooling2D", opts)
	return l
}

// Call implements Layer.
func (l *GlobalMaxPooling2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 4)
	return ops.Max(in[0], l.keepDims, 1, 2)
}
