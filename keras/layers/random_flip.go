package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// buildImage checks the input of an image augmentation layer: a batch of
// NHWC images (rank 4) or one HWC image (rank 3).
func buildImage(in []ops.Shape) error {
	if len(in) != 1 || (len(in[0]) != 3 && len(in[0]) != 4) {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) or rank-3 (height, width, channels) input, got %v", shapesStr(in))
	}
	return nil
}

// onImages applies f to x as a batch of NHWC images: a rank-3 input (one
// image, unbatched, as Keras reads it) gets a batch of 1, removed again
// from the result.
func onImages(l Layer, x ops.Tensor, f func(ops.Tensor) ops.Tensor) ops.Tensor {
	checkRank(l, x, 3, 4)
	if x.Rank() == 4 {
		return f(x)
	}
	y := f(ops.Reshape(x, append(ops.Shape{1}, x.Shape()...)))
	return ops.Reshape(y, y.Shape()[1:])
}

func seedConfig(c *config) any {
	if c.hasSeed {
		return c.seed
	}
	return nil
}

// RandomFlip is keras.layers.RandomFlip: in training, each image is
// flipped left-right ("horizontal"), upside-down ("vertical"), or each of
// the two independently ("horizontal_and_vertical"), each flip with
// probability 1/2, drawn afresh at every step. In inference it is the
// identity.
type RandomFlip struct {
	Base
	seedGen
	mode string
}

// NewRandomFlip makes a RandomFlip layer; mode is "horizontal",
// "vertical" or "horizontal_and_vertical" ("" means the last, Keras'
// default). Options: WithSeed (of the layer's seed generator, whose
// state checkpoints save: see [Seeded]), WithName, WithInputShape.
func NewRandomFlip(mode string, opts ...Option) *RandomFlip {
	if mode == "" {
		mode = "horizontal_and_vertical"
	}
	l := &RandomFlip{mode: mode}
	l.init("RandomFlip", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	switch mode {
	case "horizontal", "vertical", "horizontal_and_vertical":
	default:
		if l.err == nil {
			l.err = fmt.Errorf("layers: RandomFlip %q: mode must be \"horizontal\", \"vertical\" or \"horizontal_and_vertical\", got %q", l.name, mode)
		}
	}
	return l
}

// Build implements Layer.
func (l *RandomFlip) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomFlip) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		return ops.SeededRandomFlip(x, l.mode != "vertical", l.mode != "horizontal", l.generator(l.name))
	})
}

// GetConfig implements Layer.
func (l *RandomFlip) GetConfig() map[string]any {
	m := l.baseConfig()
	m["mode"] = l.mode
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
