package layers

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// randAugmentOps are the augmentations of Keras' RandAugment, in its
// _AUGMENT_LAYERS order (the indices its draw picks among).
var randAugmentOps = []string{
	"random_shear", "random_translation", "random_rotation", "random_brightness",
	"random_color_degeneration", "random_contrast", "random_sharpness",
	"random_posterization", "solarization", "auto_contrast", "equalization",
}

// RandAugmentSettings are the arguments of keras.layers.RandAugment. The
// zero value is Keras' defaults: value range (0, 255), 2 operations,
// factor 0.5 (the range (0, 0.5)), bilinear interpolation.
type RandAugmentSettings struct {
	// ValueRange is the range of the values (nil: (0, 255)).
	ValueRange *[2]float64
	// NumOps is the number of augmentations applied in a row (0: 2).
	NumOps int
	// Factor is the (lower, upper) strength every augmentation gets (nil:
	// Keras' factor=0.5, the range (0, 0.5)). Keras' single number f is
	// (0, f).
	Factor *[2]float64
	// Interpolation of the shear, translation and rotation: "bilinear"
	// (the default) or "nearest".
	Interpolation string
}

// RandAugment is keras.layers.RandAugment for NHWC images (rank 4, or rank
// 3 for one image): in training it draws num_ops indices among its eleven
// augmentations (for the whole batch) and one transformation of each
// augmentation, as Keras' sublayers RandomShear(x_factor=factor,
// y_factor=factor), RandomTranslation(factor, factor),
// RandomRotation(factor), RandomBrightness, RandomColorDegeneration,
// RandomContrast and RandomSharpness (factor, value_range),
// RandomPosterization(max(1, int(8 factor[1]))), Solarization(factor,
// factor), AutoContrast and Equalization would draw them, then applies
// the chosen augmentations in turn (one chosen twice applies its one
// transformation twice, as in Keras). The geometric ones fill by
// reflection. In inference it is the identity. All draws come from the
// layer's one seed generator, as Keras' RandAugment passes its own to its
// sublayers (gokeras' stream, not TensorFlow's bits).
//
// Python: keras.layers.RandAugment(value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear", seed=None)
// Go:     layers.NewRandAugment(layers.RandAugmentSettings{})
type RandAugment struct {
	Base
	seedGen
	vr, factor [2]float64
	numOps     int
	interp     string
}

// NewRandAugment makes a RandAugment layer. Options: WithSeed, WithName,
// WithInputShape.
func NewRandAugment(s RandAugmentSettings, opts ...Option) *RandAugment {
	const class = "RandAugment"
	l := &RandAugment{numOps: s.NumOps, interp: s.Interpolation}
	if l.numOps == 0 {
		l.numOps = 2
	}
	if l.interp == "" {
		l.interp = "bilinear"
	}
	l.init(class, []string{"seed"}, opts)
	l.initSeed(&l.Base)
	var e1, e2, e3 error
	l.factor, e1 = geomFactor(class, l.name, "factor", s.Factor, [2]float64{0, 0.5})
	l.vr, e2 = geomValueRange(class, l.name, s.ValueRange)
	if e2 == nil && l.vr[0] == l.vr[1] {
		e2 = geomErr(class, l.name, "value_range must be two different numbers, got %v", l.vr)
	}
	if l.numOps < 0 || l.numOps > 64 {
		e3 = geomErr(class, l.name, "num_ops must be from 1 to 64, got %d", s.NumOps)
	}
	if l.err == nil {
		l.err = firstErr(e1, e2, e3, checkFillInterp(class, l.name, "reflect", l.interp))
	}
	return l
}

// Build implements Layer.
func (l *RandAugment) Build(in []ops.Shape) error {
	if err := buildColorImage(in, 1, 3); err != nil {
		return geomErr("RandAugment", l.name, "%v", err)
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandAugment) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		idx, tf := l.draw(x)
		return l.augment(x, idx, tf)
	})
}

// posterizeBits is the bits' upper bound of Keras' sublayer
// RandomPosterization(factor=max(1, int(8 factor[1]))): its factor (1, n).
func (l *RandAugment) posterizeBits() float64 {
	return max(1, math.Floor(8*l.factor[1]))
}

// draw is Keras' get_random_transformation: the indices (num_ops,) and
// each augmentation's transformation, by Keras' names.
func (l *RandAugment) draw(x ops.Tensor) (idx ops.Tensor, tf map[string][]ops.Tensor) {
	tr, gen := x.Trace(), l.generator(l.name)
	s := x.Shape()
	n, h, w := s[0], s[1], s[2]
	f0, f1 := l.factor[0], l.factor[1]
	idx = ops.Clip(ops.Floor(ops.RandomUniform(tr, ops.Shape{l.numOps}, 0, float32(len(randAugmentOps)), gen)), 0, float32(len(randAugmentOps)-1))
	tf = map[string][]ops.Tensor{}
	col, per := ops.Shape{n, 1}, ops.Shape{n, 1, 1, 1}
	// RandomShear: the sign first, then y, then x.
	invert := ops.Select(ops.Greater(ops.RandomUniform(tr, col, 0, 1, gen), tr.Scalar(0.5)), tr.Scalar(-1), tr.Scalar(1))
	sy := geomUniform(tr, col, f0, f1, gen)
	sx := geomUniform(tr, col, f0, f1, gen)
	tf["random_shear"] = []ops.Tensor{ops.Mul(ops.Concat(1, sx, sy), invert)}
	// RandomTranslation: the height's shift, then the width's; (dx, dy).
	dy := ops.Scale(geomUniform(tr, col, f0, f1, gen), float32(h))
	dx := ops.Scale(geomUniform(tr, col, f0, f1, gen), float32(w))
	tf["random_translation"] = []ops.Tensor{ops.Concat(1, dx, dy)}
	angle := geomUniform(tr, ops.Shape{n}, f0*360, f1*360, gen)
	tf["random_rotation"] = []ops.Tensor{rotationMatrix(angle, h, w)}
	tf["random_brightness"] = []ops.Tensor{ops.Scale(geomUniform(tr, per, f0, f1, gen), float32(l.vr[1]-l.vr[0]))}
	tf["random_color_degeneration"] = []ops.Tensor{geomUniform(tr, per, f0, f1, gen)}
	tf["random_contrast"] = []ops.Tensor{geomUniform(tr, per, 1-f0, 1+f1, gen)}
	tf["random_sharpness"] = []ops.Tensor{geomUniform(tr, ops.Shape{n}, f0, f1, gen)}
	bits := tr.Scalar(1)
	if hi := l.posterizeBits(); hi > 1 { // randint(1, hi)
		bits = ops.Clip(ops.Floor(ops.RandomUniform(tr, ops.Shape{n}, 1, float32(hi), gen)), 1, float32(hi-1))
	}
	tf["random_posterization"] = []ops.Tensor{ops.BroadcastTo(ops.Sub(tr.Scalar(8), bits), ops.Shape{n})}
	add := geomUniform(tr, per, f0, f1*255, gen)
	tf["solarization"] = []ops.Tensor{add, geomUniform(tr, per, f0, f1*255, gen)}
	return idx, tf
}

// rotationMatrix is Keras' _compute_affine_matrix for rotations by angle
// degrees (N,) about the center, in its float32 order: (cos, -sin, cx -
// cx cos + cy sin, sin, cos, cy - cx sin - cy cos, 0, 0), cx = (w-1)/2,
// cy = (h-1)/2.
func rotationMatrix(angle ops.Tensor, h, w int) ops.Tensor {
	tr := angle.Trace()
	n := angle.Shape()[0]
	rad := ops.Mul(angle, tr.Scalar(float32(math.Pi/180)))
	cos, sin := ops.Reshape(ops.Cos(rad), ops.Shape{n, 1}), ops.Reshape(ops.Sin(rad), ops.Shape{n, 1})
	cx, cy := float32(0.5)*float32(w-1), float32(0.5)*float32(h-1)
	a1 := ops.Neg(sin)
	a2 := ops.Sub(ops.Sub(tr.Scalar(cx), ops.Scale(cos, cx)), ops.Scale(a1, cy))
	b2 := ops.Sub(ops.Sub(tr.Scalar(cy), ops.Scale(sin, cx)), ops.Scale(cos, cy))
	zero := ops.Scale(cos, 0)
	return ops.Concat(1, cos, a1, a2, sin, cos, b2, zero, zero)
}

// augment is Keras' transform_images: for each of the num_ops indices,
// each augmentation's output where the index names it.
func (l *RandAugment) augment(x, idx ops.Tensor, tf map[string][]ops.Tensor) ops.Tensor {
	tr := x.Trace()
	for i := range idx.Shape()[0] {
		at := ops.Reshape(ops.Slice(idx, []int{i}, []int{1}), ops.Shape{})
		for k, name := range randAugmentOps {
			x = ops.Select(ops.Equal(at, tr.Scalar(float32(k))), l.apply(name, x, tf[name]), x)
		}
	}
	return x
}

// apply is the sublayer name's transform_images given its transformation.
func (l *RandAugment) apply(name string, x ops.Tensor, t []ops.Tensor) ops.Tensor {
	lo, hi := float32(l.vr[0]), float32(l.vr[1])
	affine := func(m ops.Tensor) ops.Tensor { return ops.ImageProjectiveTransform(x, m, "reflect", 0, l.interp) }
	switch name {
	case "random_shear":
		return shearImages(x, t[0], RandomShearSettings{FillMode: "reflect", Interpolation: l.interp})
	case "random_translation":
		n := x.Shape()[0]
		one, zero := ops.OnesLike(ops.Slice(t[0], []int{0, 0}, []int{n, 1})), ops.ZerosLike(ops.Slice(t[0], []int{0, 0}, []int{n, 1}))
		dx, dy := ops.Neg(ops.Slice(t[0], []int{0, 0}, []int{n, 1})), ops.Neg(ops.Slice(t[0], []int{0, 1}, []int{n, 1}))
		return affine(ops.Concat(1, one, zero, dx, zero, one, dy, zero, zero))
	case "random_rotation":
		return affine(t[0])
	case "random_brightness":
		return ops.Clip(ops.Add(x, t[0]), lo, hi)
	case "random_color_degeneration":
		return degenerateImages(x, t[0], l.vr)
	case "random_contrast":
		mean := ops.Mean(ops.Mean(x, true, 1), true, 2)
		return ops.Clip(ops.Add(ops.Mul(ops.Sub(x, mean), t[0]), mean), lo, hi)
	case "random_sharpness":
		return sharpenImages(x, t[0], l.vr)
	case "random_posterization":
		return posterizeImages(x, t[0], l.vr)
	case "solarization":
		return solarizeImages(x, t[0], t[1], l.vr)
	case "auto_contrast":
		return autoContrast(x, l.vr)
	case "equalization":
		return equalize(x, l.vr, 256)
	}
	panic("layers: RandAugment: unknown augmentation " + name)
}

// GetConfig implements Layer.
func (l *RandAugment) GetConfig() map[string]any {
	m := l.baseConfig()
	m["value_range"] = pairConfigGeom(l.vr)
	m["num_ops"] = l.numOps
	m["factor"] = pairConfigGeom(l.factor)
	m["interpolation"] = l.interp
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
