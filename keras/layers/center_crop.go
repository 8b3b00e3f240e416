package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// CenterCrop is keras.layers.CenterCrop for NHWC batches (or one HWC
// image): the centered
// height x width window (start (H-height)/2, (W-width)/2, rounded down);
// an image smaller than the target on either side is instead cropped to
// the target's aspect ratio and resized bilinearly (Keras' smart_resize).
//
// Python: keras.layers.CenterCrop(24, 24)
// Go:     layers.NewCenterCrop(24, 24)
type CenterCrop struct {
	Base
	height, width int
}

// NewCenterCrop makes a CenterCrop layer. Options: WithName,
// WithInputShape, WithDataFormat ("channels_last" only).
func NewCenterCrop(height, width int, opts ...Option) *CenterCrop {
	l := &CenterCrop{height: height, width: width}
	l.init("CenterCrop", nil, opts)
	if l.err == nil && (height <= 0 || width <= 0 || height > 1<<16 || width > 1<<16) {
		l.err = fmt.Errorf("layers: CenterCrop %q: height and width must be in [1, 65536], got %d and %d", l.name, height, width)
	}
	return l
}

// Build implements Layer.
func (l *CenterCrop) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer. A rank-3 input is one image.
func (l *CenterCrop) Call(in []ops.Tensor, _ bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		s := x.Shape()
		if err := checkImages(s); err != nil {
			panic(&ops.Error{Op: "CenterCrop " + l.name, Msg: err.Error()})
		}
		h, w := s[1], s[2]
		if h >= l.height && w >= l.width {
			if h == l.height && w == l.width {
				return x
			}
			return ops.Slice(x, []int{0, (h - l.height) / 2, (w - l.width) / 2, 0}, []int{s[0], l.height, l.width, s[3]})
		}
		return resizeImages(cropToAspect(x, l.height, l.width), l.height, l.width, "bilinear")
	})
}

// GetConfig implements Layer.
func (l *CenterCrop) GetConfig() map[string]any {
	m := l.baseConfig()
	m["height"], m["width"] = l.height, l.width
	m["data_format"] = "channels_last"
	return m
}
