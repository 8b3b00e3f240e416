package ops

import (
	"math/rand/v2"
)

type randomZoomAttrs struct {
	Height, Width [2]float32
	SameZoom      bool
	FillMode      string
	FillValue     float32
	Interpolation string
	ID            string // random ops are never merged
}

// SeededRandomZoom zooms each image of NHWC x by factors drawn from gen's
// state at every replay, as keras.layers.RandomZoom with nearest
// interpolation: a height zoom zy uniform in [1+height[0], 1+height[1]]
// and a width zoom zx in [1+width[0], 1+width[1]] (or zx = zy with
// sameZoom); output (y, x) reads input (zy*y + (h-1)/2*(1-zy), zx*x +
// (w-1)/2*(1-zx)), each coordinate mapped by fillMode as TensorFlow's
// ImageProjectiveTransform maps it ("reflect", "wrap", "nearest"; or
// "constant", fillValue outside), then read by "nearest" (rounded half
// away from zero) or "bilinear" interpolation. A
// range of one value draws that value. The gradient adds dy back into
// the pixels each output came from.
func SeededRandomZoom(x Tensor, height, width [2]float32, sameZoom bool, fillMode string, fillValue float32, interpolation string, gen *SeedGenerator) Tensor {
	const op = "RandomZoom"
	tr := sameTrace(op, x)
	_, h, w, _ := imageShape(op, x)
	if gen == nil {
		fail(op, "nil seed generator")
	}
	switch fillMode {
	case "reflect", "wrap", "nearest", "constant":
	default:
		fail(op, "fill mode must be \"reflect\", \"wrap\", \"nearest\" or \"constant\", got %q", fillMode)
	}
	for _, r := range [][2]float32{height, width} {
		if !(r[0] <= r[1]) || r[0] <= -1 || r[1] > 1 {
			fail(op, "zoom ranges %v and %v must be ordered within (-1, 1]", height, width)
		}
	}
	uniform := func(r *rand.Rand, lo, hi float32) float32 {
		if lo == hi {
			r.Float32() // one draw per factor either way
			return lo
		}
		return lo + (hi-lo)*r.Float32()
	}
	attrs := randomZoomAttrs{height, width, sameZoom, fillMode, fillValue, interpolation, tr.uniqueName("randomzoom")}
	return randomAffine(tr, op, attrs, x, gen, fillMode, fillValue, interpolation,
		func(r *rand.Rand, _ int) (a0, a1, a2, b0, b1, b2 float32) {
			zy := uniform(r, 1+height[0], 1+height[1])
			zx := zy
			if !sameZoom {
				zx = uniform(r, 1+width[0], 1+width[1])
			}
			return zx, 0, (float32(w) - 1) / 2 * (1 - zx), 0, zy, (float32(h) - 1) / 2 * (1 - zy)
		})
}

// projectCoordF maps a sampling coordinate v of an axis of length n as
// TensorFlow's ImageProjectiveTransform does before interpolation: the
// fill mode folds v into [0, n-1] (reflect about the edges with the edge
// pixel repeated, wrap with period n, or clamp); constant mode leaves it.
func projectCoordF(mode string, v float32, n int) float32 {
	fn := float32(n)
	switch mode {
	case "reflect":
		if v < 0 {
			if n <= 1 {
				v = 0
			} else {
				sz2 := 2 * fn
				if v < -sz2 {
					v = sz2*float32(int(-v/sz2)) + v
				}
				if v < -fn {
					v += sz2
				} else {
					v = -v - 1
				}
			}
		} else if v > fn-1 {
			if n <= 1 {
				v = 0
			} else {
				sz2 := 2 * fn
				v -= sz2 * float32(int(v/sz2))
				if v >= fn {
					v = sz2 - v - 1
				}
			}
		}
		v = min(max(v, 0), fn-1)
	case "wrap":
		if v < 0 {
			if n <= 1 {
				v = 0
			} else {
				sz := fn - 1
				v += fn * (float32(int(-v/sz)) + 1)
			}
		} else if v > fn-1 {
			if n <= 1 {
				v = 0
			} else {
				sz := fn - 1
				v -= fn * float32(int(v/sz))
			}
		}
		v = min(max(v, 0), fn-1)
	case "nearest":
		v = min(max(v, 0), fn-1)
	}
	return v
}
