package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// RandomPosterizationSettings are the arguments of
// keras.layers.RandomPosterization (factor has no default: the zero
// value is refused).
type RandomPosterizationSettings struct {
	// Factor f, an integer in [1, 8]: the bits kept are drawn among the
	// integers of [1, f) (Keras' randint excludes f), or are 1 for f = 1.
	Factor float64
	// Range, when not nil, is Keras' (lower, upper) pair of integers
	// (sorted): bits drawn among [lower, upper), or lower when they are
	// equal. It replaces Factor.
	Range *[2]float64
	// ValueRange is the range of the values (nil: (0, 255)); sorted.
	ValueRange *[2]float64
}

// RandomPosterization is keras.layers.RandomPosterization for NHWC
// images (rank 4, or rank 3 for one image): in training each image draws
// a number of bits b from the layer's seed generator; its values, mapped
// from the value range to 0..255 and cast to uint8 as TensorFlow casts
// (truncated toward zero, wrapped modulo 256), keep their top b bits
// (the 8 - b low bits cleared: Keras' right then left shift by 8 - b,
// which TensorFlow clamps to [0, 7], so b = 0 keeps one bit as b = 1
// does) and are mapped back to the value range. In inference it is the
// identity. The output does not depend smoothly on the input: in
// training no gradient reaches it (TensorFlow's cast to uint8 has none).
//
// Python: keras.layers.RandomPosterization(factor, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomPosterization(layers.RandomPosterizationSettings{Factor: 4})
type RandomPosterization struct {
	Base
	seedGen
	factor [2]float64
	vr     [2]float64
}

// NewRandomPosterization makes a RandomPosterization layer. Options:
// WithSeed, WithName, WithInputShape.
func NewRandomPosterization(s RandomPosterizationSettings, opts ...Option) *RandomPosterization {
	l := &RandomPosterization{}
	l.init("RandomPosterization", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	f, err := parseFactor("RandomPosterization", l.name, "factor", s.Factor, s.Range, 1, 8)
	if err == nil && (f[0] != math.Trunc(f[0]) || f[1] != math.Trunc(f[1]) || f[0] < 0 || f[1] > 255) {
		err = fmt.Errorf("layers: RandomPosterization %q: factor must be integers (bits), got %v", l.name, f)
	}
	vr, err2 := parseValueRange("RandomPosterization", l.name, s.ValueRange, true, true)
	l.factor, l.vr = f, vr
	if l.err == nil {
		l.err = firstErr(err, err2)
	}
	return l
}

// Build implements Layer.
func (l *RandomPosterization) Build(in []ops.Shape) error {
	if err := buildColorImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomPosterization) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		n := ops.Shape{x.Shape()[0]}
		lo, hi := float32(l.factor[0]), float32(l.factor[1])
		bits := drawPerImage(x, n, lo, hi, l.generator(l.name))
		if lo < hi { // an integer of [lo, hi), as randint draws
			bits = ops.Clip(ops.Floor(bits), lo, hi-1)
		}
		// Keras' shift_factor, 8 - bits in uint8.
		shift := ops.FloorModScalar(ops.Sub(x.Trace().Scalar(8), bits), 256)
		return posterizeImages(x, shift, l.vr)
	})
}

// posterizeImages is Keras' transform_images for shift factors (batch,
// Keras' uint8 8 - bits).
func posterizeImages(x, shift ops.Tensor, vr [2]float64) ops.Tensor {
	y := toValueRange(x, vr, byteRange)
	y = ops.FloorModScalar(ops.Mul(ops.Sign(y), ops.Floor(ops.Abs(y))), 256) // cast to uint8
	s := ops.Clip(ops.Reshape(shift, ops.Shape{x.Shape()[0], 1, 1, 1}), 0, 7)
	q := ops.Floor(ops.AddScalar(ops.Exp(ops.Scale(s, float32(math.Ln2))), 0.5)) // 2^s, exactly
	y = ops.Mul(ops.Floor(ops.Div(y, q)), q)
	return toValueRange(y, byteRange, vr)
}

// GetConfig implements Layer.
func (l *RandomPosterization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfig(l.factor)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
