package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// ZeroPadding2D is keras.layers.ZeroPadding2D: rows of zeros above and
// below, columns of zeros left and right of each NHWC image.
type ZeroPadding2D struct {
	Base
	pad [2][2]int // {{top, bottom}, {left, right}}
}

// NewZeroPadding2D makes a ZeroPadding2D layer padding each image with top
// and bottom rows and left and right columns, Keras'
// padding=((top, bottom), (left, right)). Options: WithName, WithInputShape.
func NewZeroPadding2D(top, bottom, left, right int, opts ...Option) *ZeroPadding2D {
	l := &ZeroPadding2D{pad: [2][2]int{{top, bottom}, {left, right}}}
	l.init("ZeroPadding2D", nil, opts)
	if (top < 0 || bottom < 0 || left < 0 || right < 0) && l.err == nil {
		l.err = fmt.Errorf("layers: ZeroPadding2D %q: padding must be non-negative, got %v", l.name, l.pad)
	}
	return l
}

// NewZeroPadding2DUniform makes a ZeroPadding2D layer adding padding rows
// or columns on every side, Keras' padding=p (Keras' default is 1).
func NewZeroPadding2DUniform(padding int, opts ...Option) *ZeroPadding2D {
	return NewZeroPadding2D(padding, padding, padding, padding, opts...)
}

// Build implements Layer.
func (l *ZeroPadding2D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *ZeroPadding2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 4)
	return ops.Pad(in[0], [][2]int{{0, 0}, l.pad[0], l.pad[1], {0, 0}})
}

// GetConfig implements Layer.
func (l *ZeroPadding2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["padding"] = []any{[]any{l.pad[0][0], l.pad[0][1]}, []any{l.pad[1][0], l.pad[1][1]}}
	m["data_format"] = "channels_last"
	return m
}
