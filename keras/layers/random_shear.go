package layers

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// RandomShearSettings are the arguments of keras.layers.RandomShear. The
// zero value is Keras' defaults: no shear (factors 0), fill mode
// "reflect", fill value 0, bilinear interpolation.
type RandomShearSettings struct {
	// XFactor and YFactor are the (lower, upper) ranges of the shear
	// along x and y: Keras' single number f in [0, 1] is (-f, f), and a
	// pair must lie in [0, 1]; both forms are taken (Keras' config writes
	// (-f, f), which Keras itself then refuses to read back).
	XFactor, YFactor [2]float64
	// FillMode is "reflect" (the default), "wrap", "nearest" or
	// "constant".
	FillMode string
	// FillValue fills outside the image in "constant" mode.
	FillValue float64
	// Interpolation is "bilinear" (the default) or "nearest".
	Interpolation string
}

// RandomShear is keras.layers.RandomShear for NHWC images (rank 4, or
// rank 3 for one image): in training each image gets shears sx and sy
// drawn uniformly in the x and y ranges, both negated with probability
// 1/2 (one sign per image), and output (x, y) reads input (x + sx*y,
// sy*x + y), about the top-left corner as Keras' matrix [[1, sx, 0], [sy,
// 1, 0]], the pixels read from outside filled by the fill mode
// (TensorFlow's ImageProjectiveTransform). In inference it is the
// identity. The draws come from the layer's seed generator (gokeras'
// stream, not TensorFlow's bits).
//
// Python: keras.layers.RandomShear(x_factor=0.2, y_factor=(0.1, 0.3))
// Go:     layers.NewRandomShear(layers.RandomShearSettings{XFactor: [2]float64{-0.2, 0.2}, YFactor: [2]float64{0.1, 0.3}})
type RandomShear struct {
	Base
	seedGen
	x, y [2]float64
	s    RandomShearSettings
}

// NewRandomShear makes a RandomShear layer. Options: WithSeed, WithName,
// WithInputShape.
func NewRandomShear(s RandomShearSettings, opts ...Option) *RandomShear {
	const class = "RandomShear"
	if s.FillMode == "" {
		s.FillMode = "reflect"
	}
	if s.Interpolation == "" {
		s.Interpolation = "bilinear"
	}
	l := &RandomShear{s: s}
	l.init(class, []string{"seed"}, opts)
	l.initSeed(&l.Base)
	shear := func(arg string, p [2]float64) ([2]float64, error) {
		lo, hi := min(p[0], p[1]), max(p[0], p[1])
		sym := lo == -hi && hi <= 1
		if !(sym || (lo >= 0 && hi <= 1)) || math.IsNaN(lo) || math.IsNaN(hi) {
			return [2]float64{}, geomErr(class, l.name, "%s must be a number f in [0, 1] (the range (-f, f)) or a pair in [0, 1], got %v", arg, p)
		}
		return [2]float64{lo, hi}, nil
	}
	var e1, e2 error
	l.x, e1 = shear("x_factor", s.XFactor)
	l.y, e2 = shear("y_factor", s.YFactor)
	if l.err == nil {
		l.err = firstErr(e1, e2, checkFillInterp(class, l.name, s.FillMode, s.Interpolation))
	}
	return l
}

// Build implements Layer.
func (l *RandomShear) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomShear) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		return shearImages(x, l.draw(x), l.s)
	})
}

// draw is Keras' get_random_transformation: the (sx, sy) of each image,
// (N, 2), both times -1 where a uniform draw is above 1/2.
func (l *RandomShear) draw(x ops.Tensor) ops.Tensor {
	tr, gen, n := x.Trace(), l.generator(l.name), ops.Shape{x.Shape()[0], 1}
	invert := ops.Select(ops.Greater(ops.RandomUniform(tr, n, 0, 1, gen), tr.Scalar(0.5)), tr.Scalar(-1), tr.Scalar(1))
	sy := geomUniform(tr, n, l.y[0], l.y[1], gen)
	sx := geomUniform(tr, n, l.x[0], l.x[1], gen)
	return ops.Mul(ops.Concat(1, sx, sy), invert)
}

// shearImages is Keras' transform_images: the affine transform of rows
// (1, sx, 0, sy, 1, 0, 0, 0) for the shears (N, 2).
func shearImages(x, shear ops.Tensor, s RandomShearSettings) ops.Tensor {
	tr := x.Trace()
	n := shear.Shape()[0]
	col := func(v float32) ops.Tensor {
		c := make([]float32, n)
		for i := range c {
			c[i] = v
		}
		return tr.Constant(ops.Shape{n, 1}, c)
	}
	sx, sy := ops.Slice(shear, []int{0, 0}, []int{n, 1}), ops.Slice(shear, []int{0, 1}, []int{n, 1})
	one, zero := col(1), col(0)
	m := ops.Concat(1, one, sx, zero, sy, one, zero, zero, zero)
	return ops.ImageProjectiveTransform(x, m, s.FillMode, float32(s.FillValue), s.Interpolation)
}

// GetConfig implements Layer.
func (l *RandomShear) GetConfig() map[string]any {
	m := l.baseConfig()
	m["x_factor"] = pairConfigGeom(l.x)
	m["y_factor"] = pairConfigGeom(l.y)
	m["fill_mode"] = l.s.FillMode
	m["fill_value"] = l.s.FillValue
	m["interpolation"] = l.s.Interpolation
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
