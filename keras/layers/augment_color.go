package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// What Keras' colour augmentation layers share (Keras 3.15.1's
// BaseImagePreprocessingLayer): the parsing of a factor against the
// class's bounds, value_range checks, _transform_value_range, the
// grayscale of rgb_to_grayscale, and uniform draws of one number per
// image. Each layer's Call draws its transformation (Keras'
// get_random_transformation) and hands it to an unexported core (Keras'
// transform_images), which the tests feed Keras' own draws.

// parseFactor is Keras' _set_factor for the bounds [lo, hi]: a number f
// in the bounds gives (max(-|f|, lo), |f|); a pair is sorted, and refused
// only when its first entry is above hi or its second below lo (Keras
// checks no more). pair, when not nil, replaces f.
func parseFactor(class, name, arg string, f float64, pair *[2]float64, lo, hi float64) ([2]float64, error) {
	bad := func(v any) ([2]float64, error) {
		return [2]float64{}, fmt.Errorf("layers: %s %q: %s must be a number or a pair of numbers in [%v, %v], got %v", class, name, arg, lo, hi, v)
	}
	if pair != nil {
		a, b := pair[0], pair[1]
		if a > hi || b < lo || !finite(a) || !finite(b) {
			return bad(*pair)
		}
		return [2]float64{min(a, b), max(a, b)}, nil
	}
	if !(f >= lo && f <= hi) {
		return bad(f)
	}
	f = math.Abs(f)
	return [2]float64{max(-f, lo), f}, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// parseValueRange returns Keras' value_range (def when vr is nil),
// sorted when sorted is set (the classes whose _set_value_range sorts),
// as given otherwise. The two numbers must be finite and, where the
// layer divides by the range's width (wide), different.
func parseValueRange(class, name string, vr *[2]float64, sorted, wide bool) ([2]float64, error) {
	r := [2]float64{0, 255}
	if vr != nil {
		r = *vr
	}
	if !finite(r[0]) || !finite(r[1]) || (wide && r[0] == r[1]) {
		what := "two finite numbers"
		if wide {
			what = "two different finite numbers"
		}
		return r, fmt.Errorf("layers: %s %q: value_range must be %s, got %v", class, name, what, r)
	}
	if sorted {
		r = [2]float64{min(r[0], r[1]), max(r[0], r[1])}
	}
	return r, nil
}

// toValueRange is Keras' _transform_value_range in float32: nothing when
// the ranges are equal, else (x - from0) / (from1 - from0) * (to1 - to0)
// + to0, each step rounded as TensorFlow's.
func toValueRange(x ops.Tensor, from, to [2]float64) ops.Tensor {
	if from == to {
		return x
	}
	tr := x.Trace()
	f0, f1, t0, t1 := float32(from[0]), float32(from[1]), float32(to[0]), float32(to[1])
	y := ops.Div(ops.Sub(x, tr.Scalar(f0)), tr.Scalar(f1-f0))
	return ops.Add(ops.Mul(y, tr.Scalar(t1-t0)), tr.Scalar(t0))
}

var unitRange = [2]float64{0, 1}
var byteRange = [2]float64{0, 255}

// grayscale is keras.ops.image.rgb_to_grayscale of NHWC x: 0.2989 r +
// 0.5870 g + 0.1140 b as one channel (keepdims); a one-channel image is
// its own grayscale.
func grayscale(x ops.Tensor) ops.Tensor {
	if x.Shape()[3] == 1 {
		return x
	}
	w := x.Trace().Constant(ops.Shape{3}, []float32{0.2989, 0.5870, 0.1140})
	return ops.Sum(ops.Mul(x, w), true, 3)
}

// drawPerImage draws shape's numbers uniformly in [lo, hi) from gen, or
// gives lo everywhere when the range is one number (Keras' uniform(lo,
// lo)).
func drawPerImage(x ops.Tensor, shape ops.Shape, lo, hi float32, gen *ops.SeedGenerator) ops.Tensor {
	tr := x.Trace()
	if !(lo < hi) {
		v := make([]float32, shape.Size())
		for i := range v {
			v[i] = lo
		}
		return tr.Constant(shape, v)
	}
	return ops.RandomUniform(tr, shape, lo, hi, gen)
}

// buildColorImage checks an NHWC (or HWC) input whose channels must be
// one of want (none: any).
func buildColorImage(in []ops.Shape, want ...int) error {
	if err := buildImage(in); err != nil {
		return err
	}
	c := in[0][len(in[0])-1]
	if len(want) == 0 || c < 0 {
		return nil
	}
	for _, w := range want {
		if c == w {
			return nil
		}
	}
	if len(want) == 1 {
		return fmt.Errorf("needs %d channels (RGB), got shape %v", want[0], in[0])
	}
	return fmt.Errorf("needs %d or %d channels, got shape %v", want[0], want[1], in[0])
}

// pairConfig is a (lower, upper) factor as Keras' config writes it.
func pairConfig(p [2]float64) []any { return []any{p[0], p[1]} }
