package ops

import "math/rand/v2"

type randomTranslationAffineAttrs struct {
	Height, Width [2]float32
	FillMode      string
	FillValue     float32
	Interp        string
	ID            string // random ops are never merged
}

// SeededRandomTranslationAffine shifts each image of NHWC x by real
// amounts drawn from gen's state at every replay, as Keras 3's
// RandomTranslation: dy uniform in [height[0], height[1]] times the
// height, dx in [width[0], width[1]] times the width, output (y, x)
// reading input (y - dy, x - dx) by "bilinear" or "nearest"
// interpolation, the coordinates mapped by fillMode as in
// [SeededRandomZoom] (TensorFlow's ImageProjectiveTransform). A range of
// one value draws that value. The gradient adds dy back into the pixels
// each output came from.
func SeededRandomTranslationAffine(x Tensor, height, width [2]float32, fillMode string, fillValue float32, interpolation string, gen *SeedGenerator) Tensor {
	const op = "RandomTranslation"
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
	for _, p := range [][2]float32{height, width} {
		if !(p[0] <= p[1]) || p[0] < -1 || p[1] > 1 {
			fail(op, "factors %v and %v must be ordered ranges within [-1, 1]", height, width)
		}
	}
	draw := func(r *rand.Rand, p [2]float32, n int) float32 {
		u := r.Float32()
		f := p[0]
		if p[1] > p[0] {
			f = p[0] + (p[1]-p[0])*u
		}
		return f * float32(n)
	}
	attrs := randomTranslationAffineAttrs{height, width, fillMode, fillValue, interpolation, tr.uniqueName("randomtranslation")}
	return randomAffine(tr, op, attrs, x, gen, fillMode, fillValue, interpolation,
		func(r *rand.Rand, _ int) (a0, a1, a2, b0, b1, b2 float32) {
			dy := draw(r, height, h)
			dx := draw(r, width, w)
			return 1, 0, -dx, 0, 1, -dy
		})
}
