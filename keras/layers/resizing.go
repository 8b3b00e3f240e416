package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// ResizingSettings are the arguments of keras.layers.Resizing beside the
// target size. The zero value is Keras' default: bilinear, no crop.
type ResizingSettings struct {
	// Interpolation is "bilinear" (the default) or "nearest".
	Interpolation string
	// CropToAspectRatio first takes the largest centered window of the
	// target's aspect ratio, so the image is not distorted.
	CropToAspectRatio bool
}

// Resizing is keras.layers.Resizing for NHWC batches (or one HWC image): the images resized
// to height x width as tf.image.resize does (half-pixel centers; bilinear
// without antialiasing, or nearest), optionally after cropping to the
// target's aspect ratio. Each axis is a product with a constant
// interpolation matrix, so the gradient flows to the input.
//
// Python: keras.layers.Resizing(32, 48, interpolation="bilinear", crop_to_aspect_ratio=False)
// Go:     layers.NewResizing(32, 48, layers.ResizingSettings{})
type Resizing struct {
	Base
	height, width int
	s             ResizingSettings
}

// NewResizing makes a Resizing layer. Options: WithName, WithInputShape,
// WithDataFormat ("channels_last" only).
func NewResizing(height, width int, s ResizingSettings, opts ...Option) *Resizing {
	if s.Interpolation == "" {
		s.Interpolation = "bilinear"
	}
	l := &Resizing{height: height, width: width, s: s}
	l.init("Resizing", nil, opts)
	switch {
	case l.err != nil:
	case height <= 0 || width <= 0 || height > 1<<16 || width > 1<<16:
		l.err = fmt.Errorf("layers: Resizing %q: height and width must be in [1, 65536], got %d and %d", l.name, height, width)
	case s.Interpolation != "bilinear" && s.Interpolation != "nearest":
		l.err = fmt.Errorf("layers: Resizing %q: interpolation %q is not supported: \"bilinear\" or \"nearest\"", l.name, s.Interpolation)
	}
	return l
}

// Build implements Layer.
func (l *Resizing) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer. A rank-3 input is one image.
func (l *Resizing) Call(in []ops.Tensor, _ bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if err := checkImages(x.Shape()); err != nil {
			panic(&ops.Error{Op: "Resizing " + l.name, Msg: err.Error()})
		}
		if l.s.CropToAspectRatio {
			x = cropToAspect(x, l.height, l.width)
		}
		return resizeImages(x, l.height, l.width, l.s.Interpolation)
	})
}

// GetConfig implements Layer.
func (l *Resizing) GetConfig() map[string]any {
	m := l.baseConfig()
	m["height"], m["width"] = l.height, l.width
	m["interpolation"] = l.s.Interpolation
	m["crop_to_aspect_ratio"] = l.s.CropToAspectRatio
	m["pad_to_aspect_ratio"] = false
	m["fill_mode"] = "constant"
	m["fill_value"] = 0.0
	m["antialias"] = false
	m["data_format"] = "channels_last"
	return m
}

// checkImages accepts a rank-4 NHWC shape with known height and width.
func checkImages(s ops.Shape) error {
	if len(s) != 4 || s[1] <= 0 || s[2] <= 0 {
		return fmt.Errorf("needs NHWC images (rank 4, known height and width), got shape %v", s)
	}
	return nil
}

// cropToAspect takes the largest centered window of x with the aspect
// ratio th:tw, as Keras' crop_to_aspect_ratio (sizes truncated, at least 1).
func cropToAspect(x ops.Tensor, th, tw int) ops.Tensor {
	s := x.Shape()
	h, w := s[1], s[2]
	ch := max(min(h, int(float32(w*th)/float32(tw))), 1)
	cw := max(min(w, int(float32(h*tw)/float32(th))), 1)
	if ch == h && cw == w {
		return x
	}
	return ops.Slice(x, []int{0, (h - ch) / 2, (w - cw) / 2, 0}, []int{s[0], ch, cw, s[3]})
}

// resizeImages resizes NHWC x to oh x ow as tf.image.resize (half-pixel
// centers, no antialiasing): one interpolation-matrix product per axis
// whose size changes.
func resizeImages(x ops.Tensor, oh, ow int, method string) ops.Tensor {
	tr := x.Trace()
	s := x.Shape()
	n, h, w, c := s[0], s[1], s[2], s[3]
	y := x
	if oh != h {
		a := tr.Constant(ops.Shape{oh, h}, resizeMatrix(h, oh, method))
		t := ops.Reshape(ops.Transpose(y, []int{1, 0, 2, 3}), ops.Shape{h, n * w * c})
		y = ops.Transpose(ops.Reshape(ops.MatMul(a, t, false, false), ops.Shape{oh, n, w, c}), []int{1, 0, 2, 3})
	}
	if ow != w {
		a := tr.Constant(ops.Shape{ow, w}, resizeMatrix(w, ow, method))
		t := ops.Reshape(ops.Transpose(y, []int{2, 0, 1, 3}), ops.Shape{w, n * oh * c})
		y = ops.Transpose(ops.Reshape(ops.MatMul(a, t, false, false), ops.Shape{ow, n, oh, c}), []int{1, 2, 0, 3})
	}
	return y
}

// resizeMatrix is the (out, in) matrix that resamples in values to out,
// with TensorFlow's half-pixel rules computed in float32 as its kernels:
// scale = in/out; bilinear samples at (o+0.5)*scale-0.5 between floor and
// ceil (clamped to the edges), nearest takes floor((o+0.5)*scale).
func resizeMatrix(in, out int, method string) []float32 {
	m := newConstValues("Resizing matrix", out, in)
	scale := float32(in) / float32(out)
	for o := range out {
		if method == "nearest" {
			i := min(int(math.Floor(float64((float32(o)+0.5)*scale))), in-1)
			m[o*in+max(i, 0)] = 1
			continue
		}
		src := (float32(o)+0.5)*scale - 0.5
		f := float32(math.Floor(float64(src)))
		lo := min(max(int(f), 0), in-1)
		hi := min(int(math.Ceil(float64(src))), in-1)
		hi = max(hi, 0)
		lerp := src - f
		m[o*in+lo] += 1 - lerp
		m[o*in+hi] += lerp
	}
	return m
}
