package layers

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// RandomPerspectiveSettings are the arguments of
// keras.layers.RandomPerspective. The zero value is Keras' defaults:
// factor (0, 1), scale 1, bilinear interpolation, fill value 0.
type RandomPerspectiveSettings struct {
	// Factor is the (lower, upper) range of each image's probability of
	// being warped (nil: Keras' factor=1.0, the range (0, 1): an image is
	// warped with probability 1/2). Keras' single number f is (0, f).
	Factor *[2]float64
	// Scale, in [0, 1], bounds the corners' moves: each coordinate of a
	// corner moves by up to scale/2 times itself (nil: 1).
	Scale *float64
	// Interpolation is "bilinear" (the default) or "nearest".
	Interpolation string
	// FillValue fills the pixels read from outside the image.
	FillValue float64
}

// RandomPerspective is keras.layers.RandomPerspective for NHWC images
// (rank 4, or rank 3 for one image): in training each image's corners
// (0, 0), (w-1, 0), (0, h-1), (w-1, h-1) move to c + c*f, each f uniform
// in [-scale/2, scale/2), and with probability p (p uniform in the
// factor range, compared with a uniform threshold) the image is warped by
// the homography taking the moved corners to the corners (TensorFlow's
// ImageProjectiveTransform, constant fill). In inference it is the
// identity. The draws come from the layer's seed generator (gokeras'
// stream, not TensorFlow's bits).
//
// Python: keras.layers.RandomPerspective(factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0, seed=None)
// Go:     layers.NewRandomPerspective(layers.RandomPerspectiveSettings{})
type RandomPerspective struct {
	Base
	seedGen
	factor [2]float64
	scale  float64
	s      RandomPerspectiveSettings
}

// NewRandomPerspective makes a RandomPerspective layer. Options:
// WithSeed, WithName, WithInputShape.
func NewRandomPerspective(s RandomPerspectiveSettings, opts ...Option) *RandomPerspective {
	const class = "RandomPerspective"
	if s.Interpolation == "" {
		s.Interpolation = "bilinear"
	}
	l := &RandomPerspective{s: s, scale: 1}
	if s.Scale != nil {
		l.scale = *s.Scale
	}
	l.init(class, []string{"seed"}, opts)
	l.initSeed(&l.Base)
	var e1, e2 error
	l.factor, e1 = geomFactor(class, l.name, "factor", s.Factor, [2]float64{0, 1})
	if !(l.scale >= 0 && l.scale <= 1) {
		e2 = geomErr(class, l.name, "scale must be a number in [0, 1], got %v", l.scale)
	}
	if math.IsNaN(s.FillValue) || math.IsInf(s.FillValue, 0) {
		e2 = firstErr(e2, geomErr(class, l.name, "fill_value must be finite, got %v", s.FillValue))
	}
	if l.err == nil {
		l.err = firstErr(e1, e2, checkFillInterp(class, l.name, "constant", s.Interpolation))
	}
	return l
}

// Build implements Layer.
func (l *RandomPerspective) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomPerspective) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		apply, start, end := l.draw(x)
		return perspectiveImages(x, apply, start, end, l.s)
	})
}

// draw is Keras' get_random_transformation: whether each image is warped
// (N,), and the start and end corners (N, 4, 2).
func (l *RandomPerspective) draw(x ops.Tensor) (apply, start, end ops.Tensor) {
	tr, gen := x.Trace(), l.generator(l.name)
	s := x.Shape()
	n, h, w := s[0], s[1], s[2]
	p := geomUniform(tr, ops.Shape{n}, l.factor[0], l.factor[1], gen)
	apply = ops.Less(ops.RandomUniform(tr, ops.Shape{n}, 0, 1, gen), p)
	f := geomUniform(tr, ops.Shape{n, 4, 2}, -0.5*l.scale, 0.5*l.scale, gen)
	c := []float32{0, 0, float32(w - 1), 0, 0, float32(h - 1), float32(w - 1), float32(h - 1)}
	corners := make([]float32, 0, n*8)
	for range n {
		corners = append(corners, c...)
	}
	start = tr.Constant(ops.Shape{n, 4, 2}, corners)
	return apply, start, ops.Add(start, ops.Mul(start, f))
}

// perspectiveImages is Keras' transform_images: where(apply,
// perspective_transform(x, start, end), x).
func perspectiveImages(x, apply, start, end ops.Tensor, s RandomPerspectiveSettings) ops.Tensor {
	return warpImages(x, apply, ops.ComputeHomography(start, end), s)
}

// warpImages is perspectiveImages given the homographies (N, 8).
func warpImages(x, apply, homography ops.Tensor, s RandomPerspectiveSettings) ops.Tensor {
	warped := ops.ImageProjectiveTransform(x, homography, "constant", float32(s.FillValue), s.Interpolation)
	return ops.Select(perImage(apply, 4), warped, x)
}

// GetConfig implements Layer.
func (l *RandomPerspective) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfigGeom(l.factor)
	m["scale"] = l.scale
	m["interpolation"] = l.s.Interpolation
	m["fill_value"] = l.s.FillValue
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
