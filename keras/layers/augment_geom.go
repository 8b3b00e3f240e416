package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// What Keras 3.15.1's geometric and mixing augmentation layers share
// (RandomErasing, RandomGaussianBlur, RandomShear, RandomPerspective,
// MixUp, CutMix): factor parsing, uniform draws of one value per image,
// the boxes of RandomErasing and CutMix, and taking images of a batch in
// a permuted order. Each layer's Call draws its transformation (Keras'
// get_random_transformation) and hands it to an unexported core (Keras'
// transform_images), which augment_geom_keras_test.go feeds Keras' own
// draws.

// geomErr is the error of a bad argument, naming the class and layer.
func geomErr(class, name, format string, args ...any) error {
	return fmt.Errorf("layers: %s %q: %s", class, name, fmt.Sprintf(format, args...))
}

// geomFactor is Keras' _set_factor for the bounds [0, 1] with the pair
// given: nil means def; a pair is refused when its first entry is above
// 1 or its second below 0 (Keras checks no more), else sorted. Keras'
// single number f is the pair (0, f).
func geomFactor(class, name, arg string, p *[2]float64, def [2]float64) ([2]float64, error) {
	if p == nil {
		return def, nil
	}
	a, b := p[0], p[1]
	if !(a <= 1) || !(b >= 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return def, geomErr(class, name, "%s must be a number or a pair of numbers in [0, 1], got %v", arg, *p)
	}
	return [2]float64{min(a, b), max(a, b)}, nil
}

// geomValueRange checks Keras' value_range (nil: (0, 255)): two finite
// numbers, the lower first (the layers clip to it).
func geomValueRange(class, name string, vr *[2]float64) ([2]float64, error) {
	r := [2]float64{0, 255}
	if vr != nil {
		r = *vr
	}
	if !(r[0] <= r[1]) || math.IsInf(r[0], 0) || math.IsInf(r[1], 0) {
		return r, geomErr(class, name, "value_range must be two finite numbers, the lower first, got %v", r)
	}
	return r, nil
}

// geomUniform draws shape's values uniformly in [lo, hi) from gen, or
// gives lo everywhere when the range is one number (Keras' uniform(lo,
// lo)).
func geomUniform(tr *ops.Trace, shape ops.Shape, lo, hi float64, gen *ops.SeedGenerator) ops.Tensor {
	if !(float32(lo) < float32(hi)) {
		v := make([]float32, shape.Size())
		for i := range v {
			v[i] = float32(lo)
		}
		return tr.Constant(shape, v)
	}
	return ops.RandomUniform(tr, shape, float32(lo), float32(hi), gen)
}

// cropBounds is Keras' _compute_crop_bounds of RandomErasing and CutMix:
// per image, a box side of ratio*length starting at u*(length - side),
// u uniform in [0, 1).
func cropBounds(u, ratio ops.Tensor, length int) (start, end ops.Tensor) {
	tr := u.Trace()
	side := ops.Scale(ratio, float32(length))
	start = ops.Mul(u, ops.Sub(tr.Scalar(float32(length)), side))
	return start, ops.Add(start, side)
}

// boxMask is Keras' _generate_batch_mask: 1 where x0 <= column < x1 and
// y0 <= row < y1 for each image (the corners of shape (N,)), as an (N,
// h, w, 1) tensor (Keras repeats it over the channels).
func boxMask(h, w int, x0, x1, y0, y1 ops.Tensor) ops.Tensor {
	tr := x0.Trace()
	gx := make([]float32, w)
	for i := range gx {
		gx[i] = float32(i)
	}
	gy := make([]float32, h)
	for i := range gy {
		gy[i] = float32(i)
	}
	cols, rows := tr.Constant(ops.Shape{1, 1, w, 1}, gx), tr.Constant(ops.Shape{1, h, 1, 1}, gy)
	per := func(t ops.Tensor) ops.Tensor { return ops.Reshape(t, ops.Shape{t.Shape()[0], 1, 1, 1}) }
	m := ops.Mul(ops.GreaterEqual(cols, per(x0)), ops.Less(cols, per(x1)))
	return ops.Mul(m, ops.Mul(ops.GreaterEqual(rows, per(y0)), ops.Less(rows, per(y1))))
}

// perImage reshapes a per-image tensor (N,) or (N, 1) to (N, 1, ..., 1) of
// rank r, to broadcast over x's other axes.
func perImage(t ops.Tensor, r int) ops.Tensor {
	s := ops.Shape{t.Shape()[0]}
	for len(s) < r {
		s = append(s, 1)
	}
	return ops.Reshape(t, s)
}

// takeRows is keras.ops.take(x, order, axis=0): x's entries of the batch
// in the order of the ids (float32, as Gather reads them).
func takeRows(x, order ops.Tensor) ops.Tensor {
	s := x.Shape()
	rest := 1
	for _, d := range s[1:] {
		rest *= d
	}
	return ops.Reshape(ops.Gather(ops.Reshape(x, ops.Shape{s[0], rest}), order), s)
}

// mixRows is w*x + (1-w)*take(x, order) with one weight per row (Keras'
// MixUp images and labels, CutMix's labels), in Keras' order of
// operations.
func mixRows(x, w, order ops.Tensor) ops.Tensor {
	w = perImage(w, x.Rank())
	return ops.Add(ops.Mul(w, x), ops.Mul(ops.OneMinus(w), takeRows(x, order)))
}

// pairConfigGeom is a (lower, upper) pair as Keras' config writes it.
func pairConfigGeom(p [2]float64) []any { return []any{p[0], p[1]} }

// checkFillInterp checks fill_mode and interpolation as Keras' affine
// layers do.
func checkFillInterp(class, name, fillMode, interpolation string) error {
	switch {
	case interpolation != "nearest" && interpolation != "bilinear":
		return geomErr(class, name, "interpolation %q is not supported: \"bilinear\" or \"nearest\"", interpolation)
	case fillMode != "reflect" && fillMode != "wrap" && fillMode != "nearest" && fillMode != "constant":
		return geomErr(class, name, "fill_mode %q is not one of reflect, wrap, nearest, constant", fillMode)
	}
	return nil
}
