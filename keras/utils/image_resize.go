package utils

import (
	"fmt"
	"math"
)

// The resizing of image_dataset_from_directory is tf.image.resize with
// antialias=False and half-pixel centers, in float32 arithmetic as
// TensorFlow's CPU kernels compute it. Products are converted to float32
// before they are added so that no compiler fuses them into an FMA, which
// TensorFlow's kernels (built without FMA) do not do either.

// tfScale is TensorFlow's CalculateResizeScale without align_corners.
func tfScale(in, out int) float32 { return float32(in) / float32(out) }

// bilinearWeights are TensorFlow's compute_interpolation_weights with the
// half-pixel scaler: for output i, input (i+0.5)*scale-0.5 between rows lo
// and hi (clamped to the image) at fraction lerp.
func bilinearWeights(in, out int) (lo, hi []int, lerp []float32) {
	scale := tfScale(in, out)
	lo, hi, lerp = make([]int, out), make([]int, out), make([]float32, out)
	for i := range out {
		v := float32(float32(float32(i)+0.5)*scale) - 0.5
		f := float32(math.Floor(float64(v)))
		lo[i] = max(int(f), 0)
		hi[i] = min(int(float32(math.Ceil(float64(v)))), in-1)
		lerp[i] = v - f
	}
	return lo, hi, lerp
}

// resizeBilinear writes src (h×w×c) resized to oh×ow into dst (float32,
// oh*ow*c), as tf.image.resize(method="bilinear").
func resizeBilinear(dst []float32, src pixels, oh, ow int) {
	ylo, yhi, ylerp := bilinearWeights(src.h, oh)
	xlo, xhi, xlerp := bilinearWeights(src.w, ow)
	c := src.c
	for y := range oh {
		top := src.pix[ylo[y]*src.w*c:]
		bot := src.pix[yhi[y]*src.w*c:]
		yl := ylerp[y]
		for x := range ow {
			xl := xlerp[x]
			l, r := xlo[x]*c, xhi[x]*c
			o := (y*ow + x) * c
			for k := range c {
				tl, tr := float32(top[l+k]), float32(top[r+k])
				bl, br := float32(bot[l+k]), float32(bot[r+k])
				t := tl + float32((tr-tl)*xl)
				b := bl + float32((br-bl)*xl)
				dst[o+k] = t + float32((b-t)*yl)
			}
		}
	}
}

// nearestIndex is TensorFlow's nearest-neighbour source index with
// half-pixel centers: floor((i+0.5)*scale), clamped to the image.
func nearestIndex(in, out int) []int {
	scale := tfScale(in, out)
	idx := make([]int, out)
	for i := range out {
		idx[i] = min(max(int(float32(math.Floor(float64(float32(float32(i)+0.5)*scale)))), 0), in-1)
	}
	return idx
}

// resizeNearest writes src resized to oh×ow into dst (uint8), as
// tf.image.resize(method="nearest"), which keeps the dtype.
func resizeNearest(dst []uint8, src pixels, oh, ow int) {
	ys, xs := nearestIndex(src.h, oh), nearestIndex(src.w, ow)
	c := src.c
	for y := range oh {
		row := src.pix[ys[y]*src.w*c:]
		for x := range ow {
			copy(dst[(y*ow+x)*c:(y*ow+x+1)*c], row[xs[x]*c:])
		}
	}
}

// crop returns the h×w window of p at (top, left), a copy.
func (p pixels) crop(top, left, h, w int) pixels {
	out := newPixels(h, w, p.c)
	for y := range h {
		copy(out.pix[y*w*p.c:(y+1)*w*p.c], p.pix[((top+y)*p.w+left)*p.c:])
	}
	return out
}

// smartCrop is the window keras.preprocessing.image.smart_resize keeps
// (crop_to_aspect_ratio): the largest centered one with the target's
// aspect ratio, computed in float64 as Python does.
func smartCrop(h, w, th, tw int) (top, left, ch, cw int) {
	ch = int(float64(w*th) / float64(tw))
	ch = max(min(h, ch), 1)
	cw = int(float64(h*tw) / float64(th))
	cw = max(min(w, cw), 1)
	return int(float64(h-ch) / 2), int(float64(w-cw) / 2), ch, cw
}

// padGeometry is tf.image.resize_with_pad's (pad_to_aspect_ratio): the size
// the image is resized to and where it sits in the zero-padded target, in
// float32 as TensorFlow computes it.
func padGeometry(h, w, th, tw int) (rh, rw, top, left int) {
	fh, fw, fth, ftw := float32(h), float32(w), float32(th), float32(tw)
	ratio := max(fw/ftw, fh/fth)
	rhf, rwf := fh/ratio, fw/ratio
	rh, rw = int(float32(math.Floor(float64(rhf)))), int(float32(math.Floor(float64(rwf))))
	ph := float32(math.Floor(float64((fth - rhf) / 2)))
	pw := float32(math.Floor(float64((ftw - rwf) / 2)))
	return rh, rw, max(0, int(ph)), max(0, int(pw))
}

// resizeSpec is how image_dataset_from_directory sizes its images.
type resizeSpec struct {
	h, w          int
	interpolation string // "bilinear" or "nearest"
	crop, pad     bool
}

// resizeInto writes p resized by s into dst: a []float32 (bilinear) or
// []uint8 (nearest) of s.h*s.w*p.c values, channels last.
func (s resizeSpec) resizeInto(dst any, p pixels) error {
	if s.crop {
		top, left, ch, cw := smartCrop(p.h, p.w, s.h, s.w)
		p = p.crop(top, left, ch, cw)
	}
	if !s.pad {
		return s.resize(dst, p, s.h, s.w, 0, 0)
	}
	rh, rw, top, left := padGeometry(p.h, p.w, s.h, s.w)
	if rh <= 0 || rw <= 0 {
		return fmt.Errorf("an image of %dx%d pixels padded to %dx%d would be resized to %dx%d", p.h, p.w, s.h, s.w, rh, rw)
	}
	return s.resize(dst, p, rh, rw, top, left)
}

// resize resizes p to rh×rw and writes it at (top, left) of the s.h×s.w
// image dst, which is zero elsewhere (dst is assumed zeroed).
func (s resizeSpec) resize(dst any, p pixels, rh, rw, top, left int) error {
	c := p.c
	place := func(write func(o, i int)) {
		for y := range rh {
			for i := range rw * c {
				write(((top+y)*s.w+left)*c+i, y*rw*c+i)
			}
		}
	}
	switch d := dst.(type) {
	case []float32:
		if rh == s.h && rw == s.w {
			resizeBilinear(d, p, rh, rw)
			return nil
		}
		tmp := make([]float32, rh*rw*c)
		resizeBilinear(tmp, p, rh, rw)
		place(func(o, i int) { d[o] = tmp[i] })
	case []uint8:
		if rh == s.h && rw == s.w {
			resizeNearest(d, p, rh, rw)
			return nil
		}
		tmp := make([]uint8, rh*rw*c)
		resizeNearest(tmp, p, rh, rw)
		place(func(o, i int) { d[o] = tmp[i] })
	default:
		return fmt.Errorf("utils: resize into %T", dst)
	}
	return nil
}
