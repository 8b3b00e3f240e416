package utils

import (
	"fmt"
	"math"
)

// PIL's resampling, as Image.resize computes it for 8-bit images, for
// load_img's target_size: a separable convolution (horizontal pass first)
// whose kernel is widened by the scale when shrinking, with coefficients in
// 22-bit fixed point and each pass rounded to 8 bits; "nearest" samples
// pixel floor((x+0.5)*scale) by PIL's accumulated positions.

// pilFilter is one of PIL's resampling filters and its support.
type pilFilter struct {
	fn      func(x float64) float64
	support float64
}

var pilFilters = map[string]pilFilter{
	"box": {func(x float64) float64 {
		if x > -0.5 && x <= 0.5 {
			return 1
		}
		return 0
	}, 0.5},
	"bilinear": {func(x float64) float64 {
		x = math.Abs(x)
		if x < 1 {
			return 1 - x
		}
		return 0
	}, 1},
	"hamming": {func(x float64) float64 {
		x = math.Abs(x)
		if x == 0 {
			return 1
		}
		if x >= 1 {
			return 0
		}
		x *= math.Pi
		return math.Sin(x) / x * (0.54 + 0.46*math.Cos(x))
	}, 1},
	"bicubic": {func(x float64) float64 {
		const a = -0.5
		x = math.Abs(x)
		if x < 1 {
			return ((a+2)*x-(a+3))*x*x + 1
		}
		if x < 2 {
			return (((x-5)*x+8)*x - 4) * a
		}
		return 0
	}, 2},
	"lanczos": {func(x float64) float64 {
		if -3 <= x && x < 3 {
			return sinc(x) * sinc(x/3)
		}
		return 0
	}, 3},
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	x *= math.Pi
	return math.Sin(x) / x
}

const pilPrecisionBits = 32 - 8 - 2

// pilCoeffs is PIL's precompute_coeffs followed by normalize_coeffs_8bpc:
// for each output sample the first input sample, the count, and the
// fixed-point weights (ksize per output).
func pilCoeffs(inSize int, in0, in1 float64, outSize int, f pilFilter) (bounds []int, kk []int32, ksize int) {
	scale := (in1 - in0) / float64(outSize)
	filterscale := max(scale, 1)
	support := f.support * filterscale
	ksize = int(math.Ceil(support))*2 + 1
	bounds = make([]int, 2*outSize)
	kk = make([]int32, outSize*ksize)
	pre := make([]float64, ksize)
	for xx := range outSize {
		center := in0 + (float64(xx)+0.5)*scale
		ss := 1 / filterscale
		xmin := max(int(center-support+0.5), 0)
		xmax := min(int(center+support+0.5), inSize) - xmin
		ww := 0.0
		for x := range xmax {
			w := f.fn((float64(x+xmin) - center + 0.5) * ss)
			pre[x] = w
			ww += w
		}
		for x := range xmax {
			if ww != 0 {
				pre[x] /= ww
			}
			if pre[x] < 0 {
				kk[xx*ksize+x] = int32(-0.5 + pre[x]*(1<<pilPrecisionBits))
			} else {
				kk[xx*ksize+x] = int32(0.5 + pre[x]*(1<<pilPrecisionBits))
			}
		}
		bounds[2*xx], bounds[2*xx+1] = xmin, max(xmax, 0)
	}
	return bounds, kk, ksize
}

func pilClip8(v int32) uint8 {
	v >>= pilPrecisionBits
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v)
}

// pilBox is a crop box in source pixels, PIL's box argument.
type pilBox struct{ x0, y0, x1, y1 float64 }

// pilResize resizes an 8-bit image of nb bands (L, RGB, RGBa) to ow×oh,
// as Pillow 13's _resize: a box of whole pixels of the output's size is a
// crop; "nearest" is ImagingScaleAffine; the filters run two passes,
// vertical first when the height shrinks by more than twice what the width
// does (ImagingResampleInner), horizontal first otherwise.
func pilResize(pix []uint8, w, h, nb, ow, oh int, filter string, box pilBox) ([]uint8, error) {
	if box.x0 == math.Trunc(box.x0) && box.y0 == math.Trunc(box.y0) && box.x1-box.x0 == float64(ow) && box.y1-box.y0 == float64(oh) {
		out := make([]uint8, ow*oh*nb)
		for y := range oh {
			src := ((int(box.y0)+y)*w + int(box.x0)) * nb
			copy(out[y*ow*nb:(y+1)*ow*nb], pix[src:])
		}
		return out, nil
	}
	if filter == "nearest" {
		return pilNearest(pix, w, h, nb, ow, oh, box), nil
	}
	f, ok := pilFilters[filter]
	if !ok {
		return nil, fmt.Errorf("interpolation %q, want one of nearest, bilinear, bicubic, hamming, box, lanczos", filter)
	}
	needH := ow != w || box.x0 != 0 || box.x1 != float64(ow)
	needV := oh != h || box.y0 != 0 || box.y1 != float64(oh)
	horizontalFirst := !(h-oh > 0 && h-oh > (w-ow)*2)
	hb, hk, hks := pilCoeffs(w, box.x0, box.x1, ow, f)
	vb, vk, vks := pilCoeffs(h, box.y0, box.y1, oh, f)
	cur, cw := pix, w
	// horizontal resamples rows first..first+rows of cur into width ow.
	horizontal := func(first, rows int) {
		tmp := make([]uint8, ow*rows*nb)
		for y := range rows {
			in := cur[(y+first)*cw*nb:]
			for xx := range ow {
				xmin, n := hb[2*xx], hb[2*xx+1]
				k := hk[xx*hks:]
				for b := range nb {
					ss := int32(1 << (pilPrecisionBits - 1))
					for x := range n {
						ss += int32(in[(x+xmin)*nb+b]) * k[x]
					}
					tmp[(y*ow+xx)*nb+b] = pilClip8(ss)
				}
			}
		}
		cur, cw = tmp, ow
	}
	vertical := func() {
		out := make([]uint8, cw*oh*nb)
		for yy := range oh {
			ymin, n := vb[2*yy], vb[2*yy+1]
			k := vk[yy*vks:]
			for xx := range cw {
				for b := range nb {
					ss := int32(1 << (pilPrecisionBits - 1))
					for y := range n {
						ss += int32(cur[((y+ymin)*cw+xx)*nb+b]) * k[y]
					}
					out[(yy*cw+xx)*nb+b] = pilClip8(ss)
				}
			}
		}
		cur = out
	}
	switch {
	case horizontalFirst:
		if needH {
			// Only the rows the vertical pass reads.
			first, last := vb[0], vb[2*oh-2]+vb[2*oh-1]
			for i := range oh {
				vb[2*i] -= first
			}
			horizontal(first, last-first)
		}
		if needV {
			vertical()
		}
	default:
		if needV {
			vertical()
		}
		if needH {
			horizontal(0, oh)
		}
	}
	return cur, nil
}

// pilNearest is PIL's ImagingScaleAffine: positions accumulated in float64
// from a[2]+a[0]/2, truncated.
func pilNearest(pix []uint8, w, h, nb, ow, oh int, box pilBox) []uint8 {
	sx, sy := (box.x1-box.x0)/float64(ow), (box.y1-box.y0)/float64(oh)
	xs := make([]int, ow)
	xo := box.x0 + sx*0.5
	for x := range ow {
		xs[x] = coord(xo)
		xo += sx
	}
	out := make([]uint8, ow*oh*nb)
	yo := box.y0 + sy*0.5
	for y := range oh {
		yi := coord(yo)
		yo += sy
		if yi < 0 || yi >= h {
			continue
		}
		for x, xi := range xs {
			if xi >= 0 && xi < w {
				copy(out[(y*ow+x)*nb:(y*ow+x+1)*nb], pix[(yi*w+xi)*nb:])
			}
		}
	}
	return out
}

func coord(v float64) int {
	if v < 0 {
		return -1
	}
	return int(v)
}

// premultiply is PIL's RGBA to RGBa conversion; unpremultiply its inverse.
func premultiply(pix []uint8) []uint8 {
	out := make([]uint8, len(pix))
	for i := 0; i < len(pix); i += 4 {
		a := uint32(pix[i+3])
		for k := range 3 {
			t := uint32(pix[i+k])*a + 128
			out[i+k] = uint8(((t >> 8) + t) >> 8)
		}
		out[i+3] = pix[i+3]
	}
	return out
}

func unpremultiply(pix []uint8) {
	for i := 0; i < len(pix); i += 4 {
		a := uint32(pix[i+3])
		if a == 0 || a == 255 {
			continue
		}
		for k := range 3 {
			pix[i+k] = uint8(min(255*uint32(pix[i+k])/a, 255))
		}
	}
}
