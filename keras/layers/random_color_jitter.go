package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RandomColorJitterSettings are the arguments of
// keras.layers.RandomColorJitter. Each factor is nil (Keras' None: that
// adjustment is skipped), one number or a (lower, upper) pair, read as
// the layer it stands for reads its factor: RandomBrightness (in
// [-1, 1]), RandomContrast ([0, 1]), RandomSaturation ([-1, 1]) and
// RandomHue ([0, 1]).
type RandomColorJitterSettings struct {
	// ValueRange is the range of the values (nil: (0, 255)), handed to
	// each adjustment.
	ValueRange                                                    *[2]float64
	BrightnessFactor, ContrastFactor, SaturationFactor, HueFactor []float64
}

// RandomColorJitter is keras.layers.RandomColorJitter for NHWC images
// (rank 4, or rank 3 for one image; RGB when the saturation or the hue
// is jittered): in training it applies, in this order, Keras'
// RandomBrightness, RandomContrast, RandomSaturation and RandomHue
// adjustments of the factors given, each drawing its numbers per image
// from this layer's seed generator (Keras draws the sublayers'
// transformations with the jitter's generator, not their own). In
// inference it is the identity.
//
// Python: keras.layers.RandomColorJitter(value_range=(0, 255), brightness_factor=None, contrast_factor=None, saturation_factor=None, hue_factor=None, seed=None)
// Go:     layers.NewRandomColorJitter(layers.RandomColorJitterSettings{BrightnessFactor: []float64{0.2}, HueFactor: []float64{0.1}})
type RandomColorJitter struct {
	Base
	seedGen
	vr      [2]float64 // as given, as RandomHue reads it
	sorted  [2]float64 // sorted, as the others read it
	factors [4][]float64
	// ranges are the parsed factors, has which are set.
	ranges [4][2]float64
	has    [4]bool
}

// jitterParts are the adjustments in Keras' order with their classes'
// bounds.
var jitterParts = [4]struct {
	key, class string
	lo, hi     float64
}{
	{"brightness_factor", "RandomBrightness", -1, 1},
	{"contrast_factor", "RandomContrast", 0, 1},
	{"saturation_factor", "RandomSaturation", -1, 1},
	{"hue_factor", "RandomHue", 0, 1},
}

// NewRandomColorJitter makes a RandomColorJitter layer. Options:
// WithSeed, WithName, WithInputShape.
func NewRandomColorJitter(s RandomColorJitterSettings, opts ...Option) *RandomColorJitter {
	l := &RandomColorJitter{factors: [4][]float64{s.BrightnessFactor, s.ContrastFactor, s.SaturationFactor, s.HueFactor}}
	l.init("RandomColorJitter", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	vr, err := parseValueRange("RandomColorJitter", l.name, s.ValueRange, false, true)
	l.vr, l.sorted = vr, [2]float64{min(vr[0], vr[1]), max(vr[0], vr[1])}
	for i, p := range jitterParts {
		f := l.factors[i]
		if f == nil {
			continue
		}
		// Keras makes the four sublayers in __init__, which takes their
		// automatic names: the same names are taken here, so that the
		// layers made next are named as Keras names them.
		UniqueName(snake(p.class))
		l.has[i] = true
		var e error
		switch len(f) {
		case 1:
			l.ranges[i], e = parseFactor("RandomColorJitter", l.name, p.key, f[0], nil, p.lo, p.hi)
		case 2:
			l.ranges[i], e = parseFactor("RandomColorJitter", l.name, p.key, 0, &[2]float64{f[0], f[1]}, p.lo, p.hi)
		default:
			e = fmt.Errorf("layers: RandomColorJitter %q: %s must be a number or a pair, got %v", l.name, p.key, f)
		}
		err = firstErr(err, e)
	}
	if l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *RandomColorJitter) Build(in []ops.Shape) error {
	var want []int
	if l.has[2] || l.has[3] {
		want = []int{3}
	}
	if err := buildColorImage(in, want...); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// jitterDraws are the numbers of one training call: the brightness
// deltas and contrast factors (batch, 1, 1, 1), the saturation factors
// and hue shifts (batch); a none tensor skips its adjustment.
type jitterDraws struct{ delta, contrast, saturation, hue ops.Tensor }

// Call implements Layer.
func (l *RandomColorJitter) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		gen, n := l.generator(l.name), x.Shape()[0]
		per := ops.Shape{n, 1, 1, 1}
		f32 := func(v float64) float32 { return float32(v) }
		var d jitterDraws
		// Each draw follows the adjustments before it, as Keras draws
		// inside transform_images.
		return l.jitterImages(x, &d, func(i int) {
			r := l.ranges[i]
			switch i {
			case 0:
				d.delta = ops.Scale(drawPerImage(x, per, f32(r[0]), f32(r[1]), gen), f32(l.sorted[1]-l.sorted[0]))
			case 1:
				d.contrast = drawPerImage(x, per, f32(1-r[0]), f32(1+r[1]), gen)
			case 2:
				d.saturation = drawSaturation(x, r, gen)
			case 3:
				d.hue = drawHue(x, r, gen)
			}
		})
	})
}

// jitterImages applies the adjustments of d in Keras' order; draw, when
// not nil, fills adjustment i of d just before it is applied.
func (l *RandomColorJitter) jitterImages(x ops.Tensor, d *jitterDraws, draw func(i int)) ops.Tensor {
	lo, hi := float32(l.sorted[0]), float32(l.sorted[1])
	for i := range jitterParts {
		if !l.has[i] {
			continue
		}
		if draw != nil {
			draw(i)
		}
		switch i {
		case 0: // RandomBrightness
			x = ops.Clip(ops.Add(x, d.delta), lo, hi)
		case 1: // RandomContrast: the mean over height, then width
			mean := ops.Mean(ops.Mean(x, true, 1), true, 2)
			x = ops.Clip(ops.Add(ops.Mul(ops.Sub(x, mean), d.contrast), mean), lo, hi)
		case 2:
			x = saturationImages(x, d.saturation, l.sorted)
		case 3:
			x = hueImages(x, d.hue, l.vr)
		}
	}
	return x
}

// factorConfig writes a factor as it was given: null, a number or a pair.
func factorConfig(f []float64) any {
	switch len(f) {
	case 0:
		return nil
	case 1:
		return f[0]
	}
	out := make([]any, len(f))
	for i, v := range f {
		out[i] = v
	}
	return out
}

// GetConfig implements Layer.
func (l *RandomColorJitter) GetConfig() map[string]any {
	m := l.baseConfig()
	m["value_range"] = pairConfig(l.vr)
	for i, p := range jitterParts {
		m[p.key] = factorConfig(l.factors[i])
	}
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
