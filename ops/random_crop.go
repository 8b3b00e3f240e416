package ops

import "math/rand/v2"

type randomCropAttrs struct {
	Height, Width int
	ID            string // random ops are never merged
}

// RandomCrop cuts a height x width window out of each image of NHWC x, at
// an offset drawn uniformly for each image afresh at every replay. It is
// the training-time op of RandomCrop layers (a center crop is a [Slice]).
// The gradient puts dy back at the offsets, zeros elsewhere.
func RandomCrop(x Tensor, height, width int) Tensor {
	return randomCrop(x, height, width, nil)
}

// SeededRandomCrop is [RandomCrop] drawing from gen's state, which advances by one
// after each replay (see [SeededDropout]).
func SeededRandomCrop(x Tensor, height, width int, gen *SeedGenerator) Tensor {
	if gen == nil {
		fail("RandomCrop", "nil seed generator")
	}
	return randomCrop(x, height, width, gen)
}

func randomCrop(x Tensor, height, width int, gen *SeedGenerator) Tensor {
	tr := sameTrace("RandomCrop", x)
	n, h, w, c := imageShape("RandomCrop", x)
	if height < 1 || width < 1 || height > h || width > w {
		fail("RandomCrop", "cannot crop %dx%d out of images of shape %v", height, width, x.Shape())
	}
	if height == h && width == w {
		return x
	}
	return pixelMap{
		gen:  gen,
		name: "RandomCrop", attrs: randomCropAttrs{height, width, tr.uniqueName("randomcrop")},
		n: n, ih: h, iw: w, oh: height, ow: width, c: c,
		draw: func(r *rand.Rand, from []int32) {
			for b := 0; b < n; b++ {
				oy, ox := r.IntN(h-height+1), r.IntN(w-width+1)
				for y := 0; y < height; y++ {
					for x := 0; x < width; x++ {
						from[(b*height+y)*width+x] = int32((b*h+oy+y)*w + ox + x)
					}
				}
			}
		},
	}.apply(tr, x)
}
