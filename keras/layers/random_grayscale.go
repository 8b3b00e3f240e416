package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomGrayscale is keras.layers.RandomGrayscale for NHWC images (rank
// 4, or rank 3 for one image) of 3 channels (or 1, which are their own
// grayscale): in training each image is replaced, with probability
// factor, by its grayscale (0.2989 r + 0.5870 g + 0.1140 b) in every
// channel; one uniform draw per image from the layer's seed generator
// decides (draw < factor). In inference it is the identity.
//
// As Keras' get_config, the config has no seed (the constructor takes
// one): a layer loaded from a config draws from a new seed.
//
// Python: keras.layers.RandomGrayscale(factor=0.5, seed=None)
// Go:     layers.NewRandomGrayscale(0.5)
type RandomGrayscale struct {
	Base
	seedGen
	factor float64
}

// NewRandomGrayscale makes a RandomGrayscale layer converting each image
// with probability factor, in [0, 1] (Keras' default 0.5). Options:
// WithSeed, WithName, WithInputShape.
func NewRandomGrayscale(factor float64, opts ...Option) *RandomGrayscale {
	l := &RandomGrayscale{factor: factor}
	l.init("RandomGrayscale", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if l.err == nil && !(factor >= 0 && factor <= 1) {
		l.err = fmt.Errorf("layers: RandomGrayscale %q: factor must be between 0 and 1, got %v", l.name, factor)
	}
	return l
}

// Build implements Layer.
func (l *RandomGrayscale) Build(in []ops.Shape) error {
	if err := buildColorImage(in, 3, 1); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomGrayscale) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		u := ops.RandomUniform(x.Trace(), ops.Shape{x.Shape()[0], 1, 1, 1}, 0, 1, l.generator(l.name))
		return grayscaleImages(x, ops.Less(u, x.Trace().Scalar(float32(l.factor))))
	})
}

// grayscaleImages is Keras' transform_images: the images where apply
// (batch, 1, 1, 1) is 1 become their grayscale.
func grayscaleImages(x, apply ops.Tensor) ops.Tensor {
	return ops.Select(apply, grayscale(x), x)
}

// GetConfig implements Layer.
func (l *RandomGrayscale) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = l.factor
	m["data_format"] = "channels_last"
	return m
}
