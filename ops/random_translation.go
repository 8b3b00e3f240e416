package ops

import "math/rand/v2"

type randomTranslationAttrs struct {
	MaxShift  [2]int
	FillMode  string
	FillValue float32
	ID        string // random ops are never merged
}

// fillIndex maps a position i of an axis of length n to the position it
// reads under Keras' fill modes, or -1 for the fill value:
//
//	reflect:  (d c b a | a b c d | d c b a)
//	wrap:     (a b c d | a b c d | a b c d)
//	nearest:  (a a a a | a b c d | d d d d)
//	constant: (k k k k | a b c d | k k k k)
func fillIndex(mode string, i, n int) int {
	if i >= 0 && i < n {
		return i
	}
	switch mode {
	case "reflect":
		i %= 2 * n
		if i < 0 {
			i += 2 * n
		}
		if i >= n {
			i = 2*n - 1 - i
		}
		return i
	case "wrap":
		i %= n
		if i < 0 {
			i += n
		}
		return i
	case "nearest":
		return min(max(i, 0), n-1)
	}
	return -1
}

// RandomTranslation shifts each image of NHWC x by a whole number of pixels
// drawn uniformly for each image afresh at every replay: dy in
// [-maxShift[0], maxShift[0]] rows, dx in [-maxShift[1], maxShift[1]]
// columns, so that output (y, x) is input (y-dy, x-dx). Pixels shifted in
// from outside are filled by fillMode: "reflect", "wrap", "nearest" or
// "constant" (fillValue). It is the training-time op of RandomTranslation
// layers; the gradient adds dy back into the pixels each output came from.
func RandomTranslation(x Tensor, maxShift [2]int, fillMode string, fillValue float32) Tensor {
	return randomTranslation(x, maxShift, fillMode, fillValue, nil)
}

// SeededRandomTranslation is [RandomTranslation] drawing from gen's state, which advances by one
// after each replay (see [SeededDropout]).
func SeededRandomTranslation(x Tensor, maxShift [2]int, fillMode string, fillValue float32, gen *SeedGenerator) Tensor {
	if gen == nil {
		fail("RandomTranslation", "nil seed generator")
	}
	return randomTranslation(x, maxShift, fillMode, fillValue, gen)
}

func randomTranslation(x Tensor, maxShift [2]int, fillMode string, fillValue float32, gen *SeedGenerator) Tensor {
	tr := sameTrace("RandomTranslation", x)
	n, h, w, c := imageShape("RandomTranslation", x)
	switch fillMode {
	case "reflect", "wrap", "nearest", "constant":
	default:
		fail("RandomTranslation", "fill mode must be \"reflect\", \"wrap\", \"nearest\" or \"constant\", got %q", fillMode)
	}
	if maxShift[0] < 0 || maxShift[1] < 0 {
		fail("RandomTranslation", "maximum shifts %v must be non-negative", maxShift)
	}
	if maxShift == [2]int{} {
		return x
	}
	return pixelMap{
		gen:   gen,
		name:  "RandomTranslation",
		attrs: randomTranslationAttrs{maxShift, fillMode, fillValue, tr.uniqueName("randomtranslation")},
		n:     n, ih: h, iw: w, oh: h, ow: w, c: c, fill: fillValue,
		draw: func(r *rand.Rand, from []int32) {
			for b := 0; b < n; b++ {
				dy := r.IntN(2*maxShift[0]+1) - maxShift[0]
				dx := r.IntN(2*maxShift[1]+1) - maxShift[1]
				for y := 0; y < h; y++ {
					sy := fillIndex(fillMode, y-dy, h)
					for x := 0; x < w; x++ {
						sx := fillIndex(fillMode, x-dx, w)
						p := (b*h+y)*w + x
						if sy < 0 || sx < 0 {
							from[p] = -1
						} else {
							from[p] = int32((b*h+sy)*w + sx)
						}
					}
				}
			}
		},
	}.apply(tr, x)
}
