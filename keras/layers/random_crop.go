package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomCrop is keras.layers.RandomCrop: in training, a height x width
// window at a random offset of each image (drawn per image, afresh at every
// step); in inference, the window at the center (offset (H-height)/2,
// (W-width)/2). An image of exactly that size passes unchanged; a smaller
// one is an error (gokeras does not resize).
type RandomCrop struct {
	Base
	seedGen
	height, width int
}

// NewRandomCrop makes a RandomCrop layer cropping to height x width.
// Options: WithSeed (of the layer's seed generator, whose state
// checkpoints save: see [Seeded]), WithName, WithInputShape.
func NewRandomCrop(height, width int, opts ...Option) *RandomCrop {
	l := &RandomCrop{height: height, width: width}
	l.init("RandomCrop", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if (height <= 0 || width <= 0) && l.err == nil {
		l.err = fmt.Errorf("layers: RandomCrop %q: height %d and width %d must be positive", l.name, height, width)
	}
	return l
}

// Build implements Layer.
func (l *RandomCrop) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	s := in[0][len(in[0])-3:]
	if (s[0] > 0 && s[0] < l.height) || (s[1] > 0 && s[1] < l.width) {
		return fmt.Errorf("images of %dx%d are smaller than the %dx%d crop", s[0], s[1], l.height, l.width)
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomCrop) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		s := x.Shape()
		h, w := s[1], s[2]
		switch {
		case h < l.height || w < l.width:
			panic(&ops.Error{Op: "RandomCrop " + l.name, Msg: fmt.Sprintf("images of %dx%d are smaller than the %dx%d crop", h, w, l.height, l.width)})
		case h == l.height && w == l.width:
			return x
		case training:
			return ops.SeededRandomCrop(x, l.height, l.width, l.generator(l.name))
		}
		return ops.Slice(x, []int{0, (h - l.height) / 2, (w - l.width) / 2, 0}, []int{-1, l.height, l.width, -1})
	})
}

// GetConfig implements Layer.
func (l *RandomCrop) GetConfig() map[string]any {
	m := l.baseConfig()
	m["height"] = l.height
	m["width"] = l.width
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
