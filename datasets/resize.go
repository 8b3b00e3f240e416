package datasets

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"
)

// Resize is tf.image.resize(images, (height, width), method) without
// antialiasing or preserved aspect ratio, for use in a Map: images is
// (h, w, channels) or a batch (n, h, w, channels) of any numeric dtype.
// method is "bilinear" (the default) or "nearest". As TensorFlow, the
// bilinear result is float32 whatever the input's dtype, and the nearest
// result keeps it. Pixels are sampled at their centers (TensorFlow's
// half_pixel_centers), in float32 arithmetic as TensorFlow's CPU kernels
// compute it, so a resized image equals TensorFlow's.
func Resize(images *tensor.Dense, height, width int, method ...string) (*tensor.Dense, error) {
	m := "bilinear"
	if len(method) > 1 {
		return nil, fmt.Errorf("datasets: Resize: at most one method, got %q", method)
	}
	if len(method) == 1 {
		m = method[0]
	}
	if m != "bilinear" && m != "nearest" {
		return nil, fmt.Errorf("datasets: Resize: method %q is not supported (bilinear, nearest)", m)
	}
	if images == nil {
		return nil, fmt.Errorf("datasets: Resize: nil tensor")
	}
	s := []int(images.Shape())
	batched := len(s) == 4
	if len(s) != 3 && !batched {
		return nil, fmt.Errorf("datasets: Resize: images of shape %v, want (height, width, channels) or (batch, height, width, channels)", images.Shape())
	}
	if height <= 0 || width <= 0 {
		return nil, fmt.Errorf("datasets: Resize: size (%d, %d) must be positive", height, width)
	}
	if !batched {
		s = append([]int{1}, s...)
	}
	n, h, w, c := s[0], s[1], s[2], s[3]
	if h == 0 || w == 0 {
		return nil, fmt.Errorf("datasets: Resize: images of shape %v are empty", images.Shape())
	}
	if int64(n)*int64(height)*int64(width)*int64(c) > math.MaxInt32 {
		return nil, fmt.Errorf("datasets: Resize: %d x %d x %d x %d values is too large", n, height, width, c)
	}
	x := contiguous(images)
	outShape := []int{n, height, width, c}
	if !batched {
		outShape = outShape[1:]
	}
	if m == "nearest" {
		out := newDense(x.Dtype(), outShape)
		src, dst := denseBytes(x), denseBytes(out)
		size := int(x.Dtype().Size())
		ys, xs := nearestSource(h, height), nearestSource(w, width)
		for b := range n {
			for i, yi := range ys {
				for j, xj := range xs {
					from := (((b*h+yi)*w + xj) * c) * size
					to := (((b*height+i)*width + j) * c) * size
					copy(dst[to:to+c*size], src[from:from+c*size])
				}
			}
		}
		return out, nil
	}
	vals, err := floatValues(x)
	if err != nil {
		return nil, fmt.Errorf("datasets: Resize: %w", err)
	}
	out := make([]float32, n*height*width*c)
	ylo, yhi, yl := bilinearSource(h, height)
	xlo, xhi, xl := bilinearSource(w, width)
	for b := range n {
		img := vals[b*h*w*c:]
		for i := range height {
			top, bot := img[ylo[i]*w*c:], img[yhi[i]*w*c:]
			for j := range width {
				l, r := xlo[j]*c, xhi[j]*c
				o := ((b*height+i)*width + j) * c
				for k := range c {
					tl, tr, bl, br := top[l+k], top[r+k], bot[l+k], bot[r+k]
					// Each product is rounded before it is added (no FMA),
					// as TensorFlow's kernels compute it.
					t := tl + float32((tr-tl)*xl[j])
					d := bl + float32((br-bl)*xl[j])
					out[o+k] = t + float32((d-t)*yl[i])
				}
			}
		}
	}
	return tensor.New(tensor.WithShape(outShape...), tensor.WithBacking(out)), nil
}

// bilinearSource gives, for each of out samples of in pixels, the two
// source pixels and the fraction between them: the source position
// (i+0.5)*in/out-0.5, clamped to the image, in float32.
func bilinearSource(in, out int) (lo, hi []int, lerp []float32) {
	scale := float32(in) / float32(out)
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

// nearestSource is the source pixel of each of out samples of in pixels:
// floor((i+0.5)*in/out), clamped to the image.
func nearestSource(in, out int) []int {
	scale := float32(in) / float32(out)
	idx := make([]int, out)
	for i := range out {
		idx[i] = min(int(math.Floor(float64(float32(float32(i)+0.5)*scale))), in-1)
	}
	return idx
}

// floatValues is a contiguous tensor's values as float32.
func floatValues(x *tensor.Dense) ([]float32, error) {
	switch v := denseSlice(x).(type) {
	case []float32:
		return v, nil
	case []float64:
		return convertSlice(v), nil
	case []uint8:
		return convertSlice(v), nil
	case []int8:
		return convertSlice(v), nil
	case []uint16:
		return convertSlice(v), nil
	case []int16:
		return convertSlice(v), nil
	case []int32:
		return convertSlice(v), nil
	case []int64:
		return convertSlice(v), nil
	case []int:
		return convertSlice(v), nil
	}
	return nil, fmt.Errorf("dtype %v is not numeric", x.Dtype())
}
