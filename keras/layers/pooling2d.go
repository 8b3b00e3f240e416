package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// pooling2D is the shared part of MaxPooling2D and AveragePooling2D.
type pooling2D struct {
	Base
	attrs ops.Pool2DAttrs
}

func (l *pooling2D) setup(class string, opts []Option) {
	l.init(class, []string{"pool_size", "strides", "padding"}, opts)
	var err1, err2 error
	l.attrs.Pool, err1 = pair("pool_size", l.cfg.poolSize, 2)
	// Keras: strides default to pool_size.
	l.attrs.Strides, err2 = pair("strides", l.cfg.strides, 0)
	if len(l.cfg.strides) == 0 {
		l.attrs.Strides = l.attrs.Pool
	}
	l.attrs.Padding = l.cfg.padding
	for _, e := range []error{err1, err2} {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: %s %q: %w", class, l.name, e)
		}
	}
}

// Build implements Layer.
func (l *pooling2D) Build(in []ops.Shape) error {
	if len(in[0]) != 4 {
		return fmt.Errorf("needs a rank-4 (batch, height, width, channels) input, got %v", in[0])
	}
	l.built = true
	return nil
}

// GetConfig implements Layer.
func (l *pooling2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["pool_size"] = []any{l.attrs.Pool[0], l.attrs.Pool[1]}
	m["strides"] = []any{l.attrs.Strides[0], l.attrs.Strides[1]}
	m["padding"] = l.attrs.Padding
	m["data_format"] = "channels_last"
	return m
}

// MaxPooling2D is keras.layers.MaxPooling2D.
type MaxPooling2D struct{ pooling2D }

// NewMaxPooling2D makes a max pooling layer. Options: WithPoolSize
// (default 2x2), WithStrides (default: the pool size), WithPadding.
func NewMaxPooling2D(opts ...Option) *MaxPooling2D {
	l := &MaxPooling2D{}
	l.setup("MaxPooling2D", opts)
	return l
}

// Call implements Layer.
func (l *MaxPooling2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 4)
	return ops.MaxPool2D(in[0], l.attrs)
}

// AveragePooling2D is keras.layers.AveragePooling2D.
type AveragePooling2D struct{ pooling2D }

// NewAveragePooling2D makes an average pooling layer; options as
// [NewMaxPooling2D].
func NewAveragePooling2D(opts ...Option) *AveragePooling2D {
	l := &AveragePooling2D{}
	l.setup("AveragePooling2D", opts)
	return l
}

// Call implements Layer.
func (l *AveragePooling2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 4)
	return ops.AvgPool2D(in[0], l.attrs)
}
