package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// RandomTranslation is keras.layers.RandomTranslation with whole-pixel
// shifts: in training, each image is shifted by dy rows and dx columns
// drawn uniformly (per image, afresh at every step) from the integers in
// [-height_factor*H, height_factor*H] and [-width_factor*W, width_factor*W];
// the pixels shifted in are filled by fill_mode. In inference it is the
// identity. (Keras draws real shifts and interpolates bilinearly.)
type RandomTranslation struct {
	Base
	seedGen
	heightFactor, widthFactor float64
	fillMode                  string
	fillValue                 float64
}

// NewRandomTranslation makes a RandomTranslation layer; the factors are
// fractions of the height and width, in [0, 1]. Options: WithFillMode
// ("reflect", Keras' default, "constant", "wrap", "nearest"),
// WithFillValue (for "constant"; default 0), WithSeed (of the layer's
// seed generator, whose state checkpoints save: see [Seeded]), WithName,
// WithInputShape.
func NewRandomTranslation(heightFactor, widthFactor float64, opts ...Option) *RandomTranslation {
	l := &RandomTranslation{heightFactor: heightFactor, widthFactor: widthFactor, fillMode: "reflect"}
	l.init("RandomTranslation", []string{"fill_mode", "fill_value", "seed"}, opts)
	l.initSeed(&l.Base)
	if l.cfg.set["fill_mode"] {
		l.fillMode = l.cfg.more.fillMode
	}
	l.fillValue = l.cfg.more.fillValue
	var err error
	switch {
	case !(heightFactor >= 0 && heightFactor <= 1) || !(widthFactor >= 0 && widthFactor <= 1):
		err = fmt.Errorf("height_factor %v and width_factor %v must be in [0, 1]", heightFactor, widthFactor)
	case l.fillMode != "reflect" && l.fillMode != "constant" && l.fillMode != "wrap" && l.fillMode != "nearest":
		err = fmt.Errorf("fill_mode must be \"reflect\", \"constant\", \"wrap\" or \"nearest\", got %q", l.fillMode)
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: RandomTranslation %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *RandomTranslation) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// maxShift is the largest whole shift within factor*n pixels.
func maxShift(factor float64, n int) int { return int(math.Floor(factor*float64(n) + 1e-9)) }

// Call implements Layer.
func (l *RandomTranslation) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		s := x.Shape()
		shift := [2]int{maxShift(l.heightFactor, s[1]), maxShift(l.widthFactor, s[2])}
		return ops.SeededRandomTranslation(x, shift, l.fillMode, float32(l.fillValue), l.generator(l.name))
	})
}

// GetConfig implements Layer.
func (l *RandomTranslation) GetConfig() map[string]any {
	m := l.baseConfig()
	m["height_factor"] = l.heightFactor
	m["width_factor"] = l.widthFactor
	m["fill_mode"] = l.fillMode
	m["fill_value"] = l.fillValue
	m["interpolation"] = "nearest"
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
