package layers

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// RandomErasingSettings are the arguments of keras.layers.RandomErasing.
// The zero value is Keras' defaults: factor (0, 1), scale (0.02, 0.33),
// noise as the fill and value range (0, 255).
type RandomErasingSettings struct {
	// Factor is the (lower, upper) range of each image's probability of
	// being erased (nil: Keras' factor=1.0, the range (0, 1), so that an
	// image is erased with probability 1/2). Keras' single number f is
	// (0, f).
	Factor *[2]float64
	// Scale is the range the squared sides of the box are drawn from, as
	// fractions of the width and height (nil: (0.02, 0.33)).
	Scale *[2]float64
	// FillValue, when not nil, fills the box; else (Keras' None) the box
	// gets normal noise times the value range's upper bound. Either way
	// the fill is clipped to the value range.
	FillValue *float64
	// FillRGB, when not nil, is Keras' fill_value of three numbers, one
	// per channel (for 3-channel images). It replaces FillValue.
	FillRGB *[3]float64
	// ValueRange is the range of the values (nil: (0, 255)).
	ValueRange *[2]float64
}

// RandomErasing is keras.layers.RandomErasing for NHWC images (rank 4, or
// rank 3 for one image): in training each image gets a box whose width
// and height are sqrt(s) times the image's (s uniform in the scale range,
// drawn for each side), at a uniform position inside the image, and with
// probability p (p uniform in the factor range, compared with a uniform
// threshold) the box's pixels, every channel, are replaced by the fill.
// In inference it is the identity. The draws come from the layer's seed
// generator, in Keras' order (gokeras' stream, not TensorFlow's bits).
//
// Python: keras.layers.RandomErasing(factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomErasing(layers.RandomErasingSettings{})
type RandomErasing struct {
	Base
	seedGen
	factor, scale, vr [2]float64
	fill              *float64
	fillRGB           *[3]float64
}

// NewRandomErasing makes a RandomErasing layer. Options: WithSeed,
// WithName, WithInputShape.
func NewRandomErasing(s RandomErasingSettings, opts ...Option) *RandomErasing {
	const class = "RandomErasing"
	l := &RandomErasing{fill: s.FillValue, fillRGB: s.FillRGB}
	l.init(class, []string{"seed"}, opts)
	l.initSeed(&l.Base)
	var e1, e2, e3, e4 error
	l.factor, e1 = geomFactor(class, l.name, "factor", s.Factor, [2]float64{0, 1})
	l.scale, e2 = geomFactor(class, l.name, "scale", s.Scale, [2]float64{0.02, 0.33})
	l.vr, e3 = geomValueRange(class, l.name, s.ValueRange)
	if s.FillValue != nil && (math.IsNaN(*s.FillValue) || math.IsInf(*s.FillValue, 0)) {
		e4 = geomErr(class, l.name, "fill_value must be a finite number, three numbers or None, got %v", *s.FillValue)
	}
	if l.err == nil {
		l.err = firstErr(e1, e2, e3, e4)
	}
	return l
}

// Build implements Layer.
func (l *RandomErasing) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	if l.fillRGB != nil && in[0][len(in[0])-1] != 3 {
		return geomErr("RandomErasing", l.name, "a fill_value of three numbers needs 3 channels, got shape %v", in[0])
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomErasing) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		mask, apply, fill := l.draw(x)
		return eraseImages(x, mask, apply, fill)
	})
}

// draw is Keras' get_random_transformation: the boxes as a mask (N, h, w,
// 1), whether each image is erased (N,), and the fill.
func (l *RandomErasing) draw(x ops.Tensor) (mask, apply, fill ops.Tensor) {
	tr, gen := x.Trace(), l.generator(l.name)
	s := x.Shape()
	n, h, w := s[0], s[1], s[2]
	side := ops.Sqrt(geomUniform(tr, ops.Shape{n, 2}, l.scale[0], l.scale[1], gen))
	x0, x1 := cropBounds(ops.RandomUniform(tr, ops.Shape{n}, 0, 1, gen), ops.Reshape(ops.Slice(side, []int{0, 0}, []int{n, 1}), ops.Shape{n}), w)
	y0, y1 := cropBounds(ops.RandomUniform(tr, ops.Shape{n}, 0, 1, gen), ops.Reshape(ops.Slice(side, []int{0, 1}, []int{n, 1}), ops.Shape{n}), h)
	mask = boxMask(h, w, x0, x1, y0, y1)
	p := geomUniform(tr, ops.Shape{n}, l.factor[0], l.factor[1], gen)
	apply = ops.Less(ops.RandomUniform(tr, ops.Shape{n}, 0, 1, gen), p)
	switch {
	case l.fillRGB != nil:
		fill = tr.Constant(ops.Shape{3}, []float32{float32(l.fillRGB[0]), float32(l.fillRGB[1]), float32(l.fillRGB[2])})
	case l.fill != nil:
		fill = tr.Scalar(float32(*l.fill))
	default:
		fill = ops.RandomNormal(tr, s, 0, float32(l.vr[1]), gen)
	}
	return mask, apply, ops.Clip(fill, float32(l.vr[0]), float32(l.vr[1]))
}

// eraseImages is Keras' transform_images: where(apply, where(mask, fill,
// x), x), the mask and fill broadcast over x.
func eraseImages(x, mask, apply, fill ops.Tensor) ops.Tensor {
	return ops.Select(ops.Mul(mask, perImage(apply, 4)), fill, x)
}

// GetConfig implements Layer.
func (l *RandomErasing) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfigGeom(l.factor)
	m["scale"] = pairConfigGeom(l.scale)
	switch {
	case l.fillRGB != nil:
		m["fill_value"] = []any{l.fillRGB[0], l.fillRGB[1], l.fillRGB[2]}
	case l.fill != nil:
		m["fill_value"] = *l.fill
	default:
		m["fill_value"] = nil
	}
	m["value_range"] = pairConfigGeom(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
