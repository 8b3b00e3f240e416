package layers

import (
	"fmt"
	"math"
	"sync"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/ops"
)

// MixUpSettings are the arguments of keras.layers.MixUp. The zero value
// is Keras' default alpha, 0.2.
type MixUpSettings struct {
	// Alpha, when not nil, is the Beta distribution's parameter (both
	// of them) the mixing weights are drawn from; it must be positive.
	Alpha *float64
}

// MixUp is keras.layers.MixUp: in training, the images of a batch are
// paired by a random permutation and each image i becomes w_i x_i + (1 -
// w_i) x_perm(i), w_i drawn from Beta(alpha, alpha); its labels, one-hot
// or soft, are mixed with the same weights and partners. In inference it
// is the identity. The draws come from the layer's seed generator
// (gokeras' stream, not TensorFlow's bits).
//
// Keras' layer takes a dict {"images", "labels"} or images alone. gokeras
// gives the three uses their own calls:
//
//   - As a layer of a model (Call, images alone): the images are mixed
//     and the labels are not, as Keras' model(images) does.
//   - In a dataset pipeline, Keras' ds.map(lambda x, y: mix_up({"images":
//     x, "labels": y})) is ds.MapPairs(mixUp.MapPairs): each batch's
//     images and labels mixed with one draw, eagerly.
//   - In a custom train step or a subclassed model, CallWithLabels mixes
//     symbolic images and labels with one draw, at every replay.
//
// Python: keras.layers.MixUp(alpha=0.2, seed=None)
// Go:     layers.NewMixUp(layers.MixUpSettings{})
type MixUp struct {
	Base
	seedGen
	alpha float64
	mu    sync.Mutex // MapPairs' eager draws, one batch at a time
}

// NewMixUp makes a MixUp layer. Options: WithSeed, WithName,
// WithInputShape.
func NewMixUp(s MixUpSettings, opts ...Option) *MixUp {
	l := &MixUp{alpha: 0.2}
	if s.Alpha != nil {
		l.alpha = *s.Alpha
	}
	l.init("MixUp", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	if l.err == nil && !(l.alpha > 0 && !math.IsInf(l.alpha, 0)) {
		l.err = geomErr("MixUp", l.name, "alpha must be a positive number, got %v", l.alpha)
	}
	return l
}

// Build implements Layer.
func (l *MixUp) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer: the images mixed, as Keras' MixUp called on
// images alone.
func (l *MixUp) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		w, order := l.draw(x)
		return mixRows(x, w, order)
	})
}

// draw is Keras' get_random_transformation: the weights (N,) and the
// permutation (N,).
func (l *MixUp) draw(x ops.Tensor) (w, order ops.Tensor) {
	tr, gen, n := x.Trace(), l.generator(l.name), x.Shape()[0]
	order = ops.RandomPermutation(tr, n, gen)
	a := tr.Scalar(float32(l.alpha))
	return ops.RandomBeta(tr, ops.Shape{n}, a, a, gen), order
}

// CallWithLabels mixes a batch of images (N, h, w, c) and its labels (N,
// ...) with one draw, as Keras' MixUp called on {"images": images,
// "labels": labels}; in inference both come back as they are.
func (l *MixUp) CallWithLabels(images, labels ops.Tensor, training bool) (ops.Tensor, ops.Tensor) {
	if err := checkImagesLabels(l, images, labels); err != nil {
		panic(&ops.Error{Op: "MixUp", Msg: err.Error()})
	}
	if !training {
		return images, labels
	}
	w, order := l.draw(images)
	return mixRows(images, w, order), mixRows(labels, w, order)
}

// MapPairs mixes one (images, labels) batch of a dataset, eagerly and in
// training mode, for datasets.(*Dataset).MapPairs: the images float32
// (N, h, w, c) and the labels (N, ...) one-hot or soft, which come back
// as float32.
func (l *MixUp) MapPairs(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return mapImageLabelPairs(l, x, y, l.CallWithLabels)
}

// checkImagesLabels checks a batch of images and its labels for the
// mixing layers, building the layer on the images' shape.
func checkImagesLabels(l Layer, images, labels ops.Tensor) error {
	is, ls := images.Shape(), labels.Shape()
	if len(is) != 4 || len(ls) < 1 || ls[0] != is[0] {
		return fmt.Errorf("layers: %s %q: needs a batch of images (N, height, width, channels) and labels (N, ...) of the same N, got %v and %v", l.ClassName(), l.Name(), is, ls)
	}
	if !l.Built() {
		if err := l.Build([]ops.Shape{is}); err != nil {
			return fmt.Errorf("layers: %s %q: %w", l.ClassName(), l.Name(), err)
		}
	}
	return nil
}

// mapImageLabelPairs runs call on x and y as eager tensors in training
// mode and returns the results as float32 tensors, the ops' errors (a
// bad shape) as an error.
func mapImageLabelPairs(l Layer, x, y *tensor.Dense, call func(x, y ops.Tensor, training bool) (ops.Tensor, ops.Tensor)) (xo, yo *tensor.Dense, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ops.Error)
			if !ok {
				panic(r)
			}
			xo, yo, err = nil, nil, fmt.Errorf("layers: %s %q: MapPairs: %w", l.ClassName(), l.Name(), e)
		}
	}()
	if x == nil || y == nil {
		return nil, nil, fmt.Errorf("layers: %s %q: MapPairs: nil images or labels", l.ClassName(), l.Name())
	}
	vx, err := ops.ValueOf(x)
	if err != nil {
		return nil, nil, fmt.Errorf("layers: %s %q: MapPairs: images: %w", l.ClassName(), l.Name(), err)
	}
	vy, err := ops.ValueOf(y)
	if err != nil {
		return nil, nil, fmt.Errorf("layers: %s %q: MapPairs: labels: %w", l.ClassName(), l.Name(), err)
	}
	tr := ops.NewEagerTrace(true, 0)
	a, b := call(tr.Constant(vx.Shape, vx.Data), tr.Constant(vy.Shape, vy.Data), true)
	dense := func(t ops.Tensor) *tensor.Dense {
		return tensor.New(tensor.WithShape(t.Shape()...), tensor.WithBacking(t.Float32s()))
	}
	return dense(a), dense(b), nil
}

// GetConfig implements Layer.
func (l *MixUp) GetConfig() map[string]any {
	m := l.baseConfig()
	m["alpha"] = l.alpha
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
