package layers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// Initializer draws a weight's initial value, as keras.initializers do.
type Initializer interface {
	// Init returns shape.Size() values drawn with rng.
	Init(shape ops.Shape, rng *rand.Rand) []float32
	// Name is the Keras class name, such as "GlorotUniform".
	Name() string
}

// freshInitializer is an initializer of this package: its Init returns
// a new slice each call, which AddWeight keeps as the weight's storage
// (no copy: a model's weights are held once while it builds).
type freshInitializer interface{ freshValues() }

func (constInit) freshValues()      {}
func (uniformInit) freshValues()    {}
func (normalInit) freshValues()     {}
func (forgetBiasInit) freshValues() {}
func (orthogonalInit) freshValues() {}

// fans returns Keras' fan_in and fan_out: for a kernel (..., in, out) the
// receptive field (the product of the leading dims) times in and out.
func fans(s ops.Shape) (in, out float64) {
	switch len(s) {
	case 0:
		return 1, 1
	case 1:
		return float64(s[0]), float64(s[0])
	case 2:
		return float64(s[0]), float64(s[1])
	}
	rf := 1
	for _, d := range s[:len(s)-2] {
		rf *= d
	}
	return float64(s[len(s)-2] * rf), float64(s[len(s)-1] * rf)
}

type constInit struct {
	name string
	v    float32
}

func (c constInit) Init(s ops.Shape, _ *rand.Rand) []float32 {
	out := newWeightValues(s)
	for i := range out {
		out[i] = c.v
	}
	return out
}
func (c constInit) Name() string { return c.name }

// Config returns the Keras arguments: Constant's value.
func (c constInit) Config() map[string]any {
	if c.name == "Constant" {
		return map[string]any{"value": f64(c.v)}
	}
	return map[string]any{}
}

// Zeros initialises to 0.
func Zeros() Initializer { return constInit{"Zeros", 0} }

// Ones initialises to 1.
func Ones() Initializer { return constInit{"Ones", 1} }

// Constant initialises to v.
func Constant(v float32) Initializer { return constInit{"Constant", v} }

type uniformInit struct {
	name   string
	lo, hi float64
	limit  func(fanIn, fanOut float64) float64 // nil: fixed [lo, hi]
}

func (u uniformInit) Init(s ops.Shape, r *rand.Rand) []float32 {
	lo, hi := u.lo, u.hi
	if u.limit != nil {
		fi, fo := fans(s)
		l := u.limit(fi, fo)
		lo, hi = -l, l
	}
	out := newWeightValues(s)
	for i := range out {
		out[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return out
}
func (u uniformInit) Name() string { return u.name }

// Config returns the Keras arguments: the bounds of RandomUniform.
func (u uniformInit) Config() map[string]any {
	if u.limit != nil {
		return map[string]any{"seed": nil}
	}
	return map[string]any{"minval": u.lo, "maxval": u.hi, "seed": nil}
}

type normalInit struct {
	name      string
	mean, std float64
	stddev    func(fanIn, fanOut float64) float64 // nil: fixed std
	truncated bool
}

func (n normalInit) Init(s ops.Shape, r *rand.Rand) []float32 {
	std := n.std
	if n.stddev != nil {
		std = n.stddev(fans(s))
	}
	out := newWeightValues(s)
	for i := range out {
		z := r.NormFloat64()
		// A truncated normal redraws values beyond two standard deviations.
		for n.truncated && math.Abs(z) > 2 {
			z = r.NormFloat64()
		}
		out[i] = float32(n.mean + std*z)
	}
	return out
}
func (n normalInit) Name() string { return n.name }

// Config returns the Keras arguments: the mean and stddev of RandomNormal.
func (n normalInit) Config() map[string]any {
	if n.stddev != nil {
		return map[string]any{"seed": nil}
	}
	return map[string]any{"mean": n.mean, "stddev": n.std, "seed": nil}
}

// truncFactor corrects the standard deviation of a normal truncated at two
// standard deviations, as Keras' VarianceScaling does.
const truncFactor = 0.87962566103423978

// GlorotUniform draws from U(-l, l) with l = sqrt(6 / (fan_in + fan_out)),
// Keras' default kernel initializer.
func GlorotUniform() Initializer {
	return uniformInit{name: "GlorotUniform", limit: func(fi, fo float64) float64 { return math.Sqrt(6 / (fi + fo)) }}
}

// GlorotNormal draws from a truncated normal with std sqrt(2 / (fan_in + fan_out)).
func GlorotNormal() Initializer {
	return normalInit{name: "GlorotNormal", truncated: true, stddev: func(fi, fo float64) float64 { return math.Sqrt(2/(fi+fo)) / truncFactor }}
}

// HeNormal draws from a truncated normal with std sqrt(2 / fan_in).
func HeNormal() Initializer {
	return normalInit{name: "HeNormal", truncated: true, stddev: func(fi, _ float64) float64 { return math.Sqrt(2/fi) / truncFactor }}
}

// HeUniform draws from U(-l, l) with l = sqrt(6 / fan_in).
func HeUniform() Initializer {
	return uniformInit{name: "HeUniform", limit: func(fi, _ float64) float64 { return math.Sqrt(6 / fi) }}
}

// RandomNormal draws from N(mean, stddev²); Keras' defaults are 0 and 0.05.
func RandomNormal(mean, stddev float64) Initializer {
	return normalInit{name: "RandomNormal", mean: mean, std: stddev}
}

// RandomUniform draws from U(minval, maxval); Keras' defaults are -0.05 and 0.05.
func RandomUniform(minval, maxval float64) Initializer {
	return uniformInit{name: "RandomUniform", lo: minval, hi: maxval}
}

// VarianceScaling is Keras' VarianceScaling: with n the fan_in, the
// fan_out or their mean (mode "fan_in", "fan_out", "fan_avg"), it draws
// from a normal truncated at two standard deviations with variance
// scale/n ("truncated_normal"), an untruncated one ("untruncated_normal"
// or "normal"), or U(-l, l) with l = sqrt(3*scale/n) ("uniform"). Keras'
// defaults are 1, "fan_in", "truncated_normal". PyTorch's default for
// Linear and Conv2d weights is VarianceScaling(1/3, "fan_in", "uniform").
func VarianceScaling(scale float64, mode, distribution string) (Initializer, error) {
	if !(scale > 0) {
		return nil, fmt.Errorf("layers: VarianceScaling: scale must be > 0, got %v", scale)
	}
	var fan func(fi, fo float64) float64
	switch mode {
	case "fan_in":
		fan = func(fi, _ float64) float64 { return fi }
	case "fan_out":
		fan = func(_, fo float64) float64 { return fo }
	case "fan_avg":
		fan = func(fi, fo float64) float64 { return (fi + fo) / 2 }
	default:
		return nil, fmt.Errorf("layers: VarianceScaling: mode must be fan_in, fan_out or fan_avg, got %q", mode)
	}
	variance := func(fi, fo float64) float64 { return scale / math.Max(1, fan(fi, fo)) }
	cfg := map[string]any{"scale": scale, "mode": mode, "distribution": distribution, "seed": nil}
	switch distribution {
	case "truncated_normal":
		return configured{normalInit{name: "VarianceScaling", truncated: true,
			stddev: func(fi, fo float64) float64 { return math.Sqrt(variance(fi, fo)) / truncFactor }}, cfg}, nil
	case "untruncated_normal", "normal":
		return configured{normalInit{name: "VarianceScaling",
			stddev: func(fi, fo float64) float64 { return math.Sqrt(variance(fi, fo)) }}, cfg}, nil
	case "uniform":
		return configured{uniformInit{name: "VarianceScaling",
			limit: func(fi, fo float64) float64 { return math.Sqrt(3 * variance(fi, fo)) }}, cfg}, nil
	}
	return nil, fmt.Errorf("layers: VarianceScaling: distribution must be truncated_normal, untruncated_normal or uniform, got %q", distribution)
}

// configured gives an initializer the Keras config it is saved with.
type configured struct {
	Initializer
	cfg map[string]any
}

// Config returns the Keras arguments.
func (c configured) Config() map[string]any { return c.cfg }

// LecunNormal draws from a truncated normal with std sqrt(1 / fan_in).
func LecunNormal() Initializer {
	return normalInit{name: "LecunNormal", truncated: true, stddev: func(fi, _ float64) float64 { return math.Sqrt(1/fi) / truncFactor }}
}

// LecunUniform draws from U(-l, l) with l = sqrt(3 / fan_in).
func LecunUniform() Initializer {
	return uniformInit{name: "LecunUniform", limit: func(fi, _ float64) float64 { return math.Sqrt(3 / fi) }}
}

// TruncatedNormal draws from N(mean, stddev²) truncated at two standard
// deviations (values beyond are redrawn); Keras' defaults are 0 and 0.05.
func TruncatedNormal(mean, stddev float64) Initializer {
	return normalInit{name: "TruncatedNormal", mean: mean, std: stddev, truncated: true}
}

// GetInitializer resolves a Keras initializer name such as "glorot_uniform",
// "he_normal", "lecun_uniform", "zeros", "ones", "random_normal",
// "random_uniform", "truncated_normal", "variance_scaling" (with Keras'
// default arguments).
func GetInitializer(name string) (Initializer, error) {
	switch strings.ToLower(name) {
	case "glorot_uniform", "glorotuniform":
		return GlorotUniform(), nil
	case "glorot_normal", "glorotnormal":
		return GlorotNormal(), nil
	case "he_normal", "henormal":
		return HeNormal(), nil
	case "he_uniform", "heuniform":
		return HeUniform(), nil
	case "zeros":
		return Zeros(), nil
	case "ones":
		return Ones(), nil
	case "random_normal", "randomnormal":
		return RandomNormal(0, 0.05), nil
	case "random_uniform", "randomuniform":
		return RandomUniform(-0.05, 0.05), nil
	case "lecun_normal", "lecunnormal":
		return LecunNormal(), nil
	case "lecun_uniform", "lecununiform":
		return LecunUniform(), nil
	case "truncated_normal", "truncatednormal":
		return TruncatedNormal(0, 0.05), nil
	case "variance_scaling", "variancescaling":
		return VarianceScaling(1, "fan_in", "truncated_normal")
	}
	return nil, fmt.Errorf("layers: unknown initializer %q", name)
}
