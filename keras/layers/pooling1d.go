package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// pooling1D is the shared part of MaxPooling1D and AveragePooling1D: a
// 2-D pooling of a 1 x pool_size window over a 1 x steps image.
type pooling1D struct {
	Base
	attrs ops.Pool2DAttrs
}

func (l *pooling1D) setup(class string, opts []Option) {
	l.init(class, []string{"pool_size", "strides", "padding"}, opts)
	pool, err1 := one("pool_size", l.cfg.poolSize, 2)
	stride, err2 := one("strides", l.cfg.strides, pool) // Keras: strides default to pool_size
	l.attrs = ops.Pool2DAttrs{Pool: [2]int{1, pool}, Strides: [2]int{1, stride}, Padding: l.cfg.padding}
	for _, e := range []error{err1, err2} {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: %s %q: %w", class, l.name, e)
		}
	}
}

// Build implements Layer.
func (l *pooling1D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 3 {
		return fmt.Errorf("needs one rank-3 (batch, steps, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

func (l *pooling1D) pool(x ops.Tensor, f func(ops.Tensor, ops.Pool2DAttrs) ops.Tensor) ops.Tensor {
	s := x.Shape()
	y := f(ops.Reshape(x, ops.Shape{s[0], 1, s[1], s[2]}), l.attrs)
	ys := y.Shape()
	return ops.Reshape(y, ops.Shape{ys[0], ys[2], ys[3]})
}

// GetConfig implements Layer.
func (l *pooling1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["pool_size"] = []any{l.attrs.Pool[1]}
	m["strides"] = []any{l.attrs.Strides[1]}
	m["padding"] = l.attrs.Padding
	m["data_format"] = "channels_last"
	return m
}

// MaxPooling1D is keras.layers.MaxPooling1D: the maximum over windows of
// pool_size steps of (batch, steps, channels) input.
//
//	keras.layers.MaxPooling1D(pool_size=3, strides=2, padding="same")
//	layers.NewMaxPooling1D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same"))
type MaxPooling1D struct{ pooling1D }

// NewMaxPooling1D makes a 1-D max pooling layer. Options: WithPoolSize
// (default 2), WithStrides (default: the pool size), WithPadding.
func NewMaxPooling1D(opts ...Option) *MaxPooling1D {
	l := &MaxPooling1D{}
	l.setup("MaxPooling1D", opts)
	return l
}

// Call implements Layer.
func (l *MaxPooling1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 3)
	return l.pool(in[0], ops.MaxPool2D)
}

// AveragePooling1D is keras.layers.AveragePooling1D: the mean over windows
// of pool_size steps (with "same" padding, over the steps inside the
// input).
//
//	keras.layers.AveragePooling1D(pool_size=2)
//	layers.NewAveragePooling1D(layers.WithPoolSize(2))
type AveragePooling1D struct{ pooling1D }

// NewAveragePooling1D makes a 1-D average pooling layer; options as
// [NewMaxPooling1D].
func NewAveragePooling1D(opts ...Option) *AveragePooling1D {
	l := &AveragePooling1D{}
	l.setup("AveragePooling1D", opts)
	return l
}

// Call implements Layer.
func (l *AveragePooling1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 3)
	return l.pool(in[0], ops.AvgPool2D)
}
