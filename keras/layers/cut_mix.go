package layers

import (
	"sync"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/ops"
)

// CutMixSettings are the arguments of keras.layers.CutMix. The zero
// value is Keras' default factor, 1.0 (the range (0, 1)).
type CutMixSettings struct {
	// Factor is the (lower, upper) range alpha is drawn from, once per
	// batch (nil: (0, 1)). Keras' single number f is (0, f).
	Factor *[2]float64
}

// CutMix is keras.layers.CutMix: in training, alpha is drawn uniformly
// in the factor range (plus 1e-6) for the batch, then for each image a
// weight w from Beta(alpha, alpha) and a box of sides sqrt(1-w) times the
// width and height at a uniform position; the images are paired by a
// random permutation and each image's box is pasted from its partner.
// Its labels are mixed as l_i λ_i + l_perm(i) (1 - λ_i), λ_i the part of
// the image outside the box (1 - box area / image area). In inference,
// and for one unbatched image, it is the identity. The draws come from
// the layer's seed generator (gokeras' stream, not TensorFlow's bits).
//
// As [MixUp], Call mixes images alone (Keras' cut_mix(images)),
// MapPairs mixes a dataset's (images, labels) batches (ds.MapPairs(
// cutMix.MapPairs), Keras' ds.map(lambda x, y: cut_mix({"images": x,
// "labels": y}))) and CallWithLabels symbolic ones.
//
// Python: keras.layers.CutMix(factor=1.0, seed=None)
// Go:     layers.NewCutMix(layers.CutMixSettings{})
type CutMix struct {
	Base
	seedGen
	factor [2]float64
	mu     sync.Mutex
}

// NewCutMix makes a CutMix layer. Options: WithSeed, WithName,
// WithInputShape.
func NewCutMix(s CutMixSettings, opts ...Option) *CutMix {
	l := &CutMix{}
	l.init("CutMix", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	f, err := geomFactor("CutMix", l.name, "factor", s.Factor, [2]float64{0, 1})
	l.factor = f
	if l.err == nil {
		l.err = err
	}
	return l
}

// Build implements Layer.
func (l *CutMix) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *CutMix) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 3, 4)
	if !training || x.Rank() == 3 {
		return x
	}
	mask, _, order := l.draw(x)
	return cutMixImages(x, mask, order)
}

// draw is Keras' get_random_transformation: the boxes as a mask (N, h,
// w, 1), the labels' weights (N,) and the permutation (N,).
func (l *CutMix) draw(x ops.Tensor) (mask, weight, order ops.Tensor) {
	tr, gen := x.Trace(), l.generator(l.name)
	s := x.Shape()
	n, h, w := s[0], s[1], s[2]
	alpha := ops.AddScalar(geomUniform(tr, ops.Shape{}, l.factor[0], l.factor[1], gen), 1e-6)
	ratio := ops.Sqrt(ops.OneMinus(ops.RandomBeta(tr, ops.Shape{n}, alpha, alpha, gen)))
	x0, x1 := cropBounds(ops.RandomUniform(tr, ops.Shape{n}, 0, 1, gen), ratio, w)
	y0, y1 := cropBounds(ops.RandomUniform(tr, ops.Shape{n}, 0, 1, gen), ratio, h)
	mask = boxMask(h, w, x0, x1, y0, y1)
	area := ops.Div(ops.Mul(ops.Sub(x1, x0), ops.Sub(y1, y0)), tr.Scalar(float32(w*h)))
	return mask, ops.OneMinus(area), ops.RandomPermutation(tr, n, gen)
}

// cutMixImages is Keras' transform_images: where(mask, take(x, order),
// x).
func cutMixImages(x, mask, order ops.Tensor) ops.Tensor {
	return ops.Select(mask, takeRows(x, order), x)
}

// CallWithLabels cuts and mixes a batch of images (N, h, w, c) and mixes
// its labels (N, ...) with one draw, as Keras' CutMix called on
// {"images": images, "labels": labels}; in inference both come back as
// they are.
func (l *CutMix) CallWithLabels(images, labels ops.Tensor, training bool) (ops.Tensor, ops.Tensor) {
	if err := checkImagesLabels(l, images, labels); err != nil {
		panic(&ops.Error{Op: "CutMix", Msg: err.Error()})
	}
	if !training {
		return images, labels
	}
	mask, w, order := l.draw(images)
	return cutMixImages(images, mask, order), mixRows(labels, w, order)
}

// MapPairs cuts and mixes one (images, labels) batch of a dataset,
// eagerly and in training mode, for datasets.(*Dataset).MapPairs (see
// [MixUp.MapPairs]).
func (l *CutMix) MapPairs(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return mapImageLabelPairs(l, x, y, l.CallWithLabels)
}

// GetConfig implements Layer.
func (l *CutMix) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfigGeom(l.factor)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
