package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// UpSampling2D is keras.layers.UpSampling2D: it repeats the rows of each
// NHWC image height times and the columns width times ("nearest", the
// default), or resizes bilinearly (WithInterpolation("bilinear")).
//
//	keras.layers.UpSampling2D(size=(2, 2), interpolation="bilinear")
//	layers.NewUpSampling2D(2, 2, layers.WithInterpolation("bilinear"))
type UpSampling2D struct {
	Base
	size          [2]int
	interpolation string
}

// NewUpSampling2D makes an UpSampling2D layer with factors height and
// width (Keras' default size is (2, 2)). Options: WithInterpolation,
// WithName, WithInputShape.
func NewUpSampling2D(height, width int, opts ...Option) *UpSampling2D {
	l := &UpSampling2D{size: [2]int{height, width}}
	l.init("UpSampling2D", []string{"interpolation"}, opts)
	l.interpolation = "nearest"
	if l.cfg.set["interpolation"] {
		l.interpolation = l.cfg.conv.interpolation
	}
	var err error
	switch {
	case height <= 0 || width <= 0:
		err = fmt.Errorf("size (%d, %d) must be positive", height, width)
	case l.interpolation != "nearest" && l.interpolation != "bilinear":
		err = fmt.Errorf("interpolation %q is not supported: \"nearest\" or \"bilinear\"", l.interpolation)
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: UpSampling2D %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *UpSampling2D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *UpSampling2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 4)
	return ops.UpSample2D(in[0], l.size, l.interpolation)
}

// GetConfig implements Layer.
func (l *UpSampling2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["size"] = []any{l.size[0], l.size[1]}
	m["data_format"] = "channels_last"
	m["interpolation"] = l.interpolation
	return m
}
