package ops

import (
	"math"
	"math/rand/v2"
)

type randomRotationAttrs struct {
	Factor    [2]float32
	FillMode  string
	FillValue float32
	Interp    string
	ID        string // random ops are never merged
}

// SeededRandomRotation rotates each image of NHWC x about its center by
// an angle drawn from gen's state at every replay, as
// keras.layers.RandomRotation ("nearest" or "bilinear" interpolation):
// the angle is
// uniform in [factor[0], factor[1]] full turns (degrees factor*360,
// counter-clockwise for positive angles in Keras' convention); output
// (y, x) reads input (cos·x - sin·y + a2, sin·x + cos·y + b2) about the
// center ((w-1)/2, (h-1)/2), the coordinates mapped by fillMode and
// rounded as in [SeededRandomZoom]. A range of one value draws that
// value. The gradient adds dy back into the pixels each output came from.
func SeededRandomRotation(x Tensor, factor [2]float32, fillMode string, fillValue float32, interpolation string, gen *SeedGenerator) Tensor {
	const op = "RandomRotation"
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
	if !(factor[0] <= factor[1]) || factor[0] < -1 || factor[1] > 1 {
		fail(op, "factor %v must be an ordered range within [-1, 1]", factor)
	}
	lo, hi := factor[0]*360, factor[1]*360
	toRad := float32(math.Pi / 180)
	cx, cy := float32(0.5)*(float32(w)-1), float32(0.5)*(float32(h)-1)
	attrs := randomRotationAttrs{factor, fillMode, fillValue, interpolation, tr.uniqueName("randomrotation")}
	return randomAffine(tr, op, attrs, x, gen, fillMode, fillValue, interpolation,
		func(r *rand.Rand, _ int) (a0, a1, a2, b0, b1, b2 float32) {
			u := r.Float32()
			deg := lo
			if hi > lo {
				deg = lo + (hi-lo)*u
			}
			rad := deg * toRad
			cos, sin := float32(math.Cos(float64(rad))), float32(math.Sin(float64(rad)))
			a0, a1 = cos, -sin
			b0, b1 = sin, cos
			return a0, a1, cx - cx*a0 - cy*a1, b0, b1, cy - cx*b0 - cy*b1
		})
}
