package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// BatchNormalization is keras.layers.BatchNormalization over the last axis:
// in training, normalise with the batch's mean and (biased) variance and
// update the moving statistics (moving = moving*momentum +
// batch*(1-momentum)); in inference, normalise with the moving statistics.
// Keras' defaults: momentum 0.99, epsilon 1e-3, center and scale on.
//
// With WithSynchronized(true) the batch statistics are those of the global
// batch: every replica all-reduces its per-channel sum, sum of squares and
// count, so N replicas compute what one replica computes on the whole
// batch. Without it each replica normalises with its own batch (as in
// TensorFlow), and the moving statistics are averaged across replicas,
// weighted by their example counts, so every copy stays identical.
type BatchNormalization struct {
	Base
	momentum, epsilon float64
	center, scale     bool
	synchronized      bool

	Gamma, Beta                *ops.Variable
	MovingMean, MovingVariance *ops.Variable
}

// NewBatchNormalization makes a BatchNormalization layer. Options:
// WithMomentum, WithEpsilon, WithCenter, WithScale, WithSynchronized,
// WithAxis (-1 only), WithName.
func NewBatchNormalization(opts ...Option) *BatchNormalization {
	l := &BatchNormalization{momentum: 0.99, epsilon: 1e-3, center: true, scale: true}
	l.init("BatchNormalization", []string{"momentum", "epsilon", "center", "scale", "synchronized", "axis"}, opts)
	c := l.cfg
	if c.set["momentum"] {
		l.momentum = c.momentum
	}
	if c.set["epsilon"] {
		l.epsilon = c.epsilon
	}
	if c.set["center"] {
		l.center = c.center
	}
	if c.set["scale"] {
		l.scale = c.scaleOn
	}
	l.synchronized = c.synchronized
	if l.err == nil && (l.momentum < 0 || l.momentum > 1 || l.epsilon <= 0) {
		l.err = fmt.Errorf("layers: BatchNormalization %q: momentum must be in [0, 1] and epsilon positive, got %v and %v", l.name, l.momentum, l.epsilon)
	}
	return l
}

// Build implements Layer.
func (l *BatchNormalization) Build(in []ops.Shape) error {
	s := in[0]
	if len(s) < 2 || s[len(s)-1] <= 0 {
		return fmt.Errorf("needs an input of rank >= 2 with known channels, got %v", s)
	}
	if l.cfg.set["axis"] && l.cfg.axis != -1 && l.cfg.axis != len(s)-1 {
		return errUnsupportedAxis(l.cfg.axis)
	}
	c := ops.Shape{s[len(s)-1]}
	if l.scale {
		l.Gamma = l.AddWeight("gamma", c, Ones(), true, nil)
	}
	if l.center {
		l.Beta = l.AddWeight("beta", c, Zeros(), true, nil)
	}
	l.MovingMean = l.AddWeight("moving_mean", c, Zeros(), false, nil)
	l.MovingVariance = l.AddWeight("moving_variance", c, Ones(), false, nil)
	l.built = true
	return nil
}

// Call implements Layer.
//
// Training builds the fused batch norm ops (ops.BatchNormShiftedSums, then
// ops.BatchNormShiftedMoments and ops.BatchNormApply): one pass over x for
// the per-channel sum and sum of squares of x minus a sample of the batch
// (accumulated in float64), one to
// normalise, and the standard two-pass gradient. In synchronized mode the
// shift and the packed sum, sum of squares and count are all-reduced
// across replicas
// (ops.AllReduceSum) before the moments, and the backward pass all-reduces
// its per-channel sums the same way. Inference normalises with the moving
// statistics in one pass.
//
// A frozen layer (SetTrainable(false), on it or on a model holding it)
// runs in inference mode even in a training step, as Keras 3's
// BatchNormalization: its moving statistics keep the values a pretrained
// model learned, which is what fine-tuning relies on.
func (l *BatchNormalization) Call(in []ops.Tensor, training bool) ops.Tensor {
	training = training && l.trainable
	x := in[0]
	tr := x.Trace()
	s := x.Shape()
	ch := s[len(s)-1]
	if ch != l.MovingMean.Shape()[0] {
		panic(&ops.Error{Op: "BatchNormalization " + l.name, Msg: fmt.Sprintf("expected %d channels, got shape %v", l.MovingMean.Shape()[0], s)})
	}
	var gamma, beta ops.Tensor
	if l.Gamma != nil {
		gamma = tr.Read(l.Gamma)
	}
	if l.Beta != nil {
		beta = tr.Read(l.Beta)
	}
	attrs := ops.BatchNormAttrs{Epsilon: float32(l.epsilon), Training: training, Synchronized: l.synchronized}
	var moments ops.Tensor
	if training {
		moments = l.batchMoments(tr, x)
	} else {
		moments = ops.BatchNormPack(tr.Read(l.MovingMean), tr.Read(l.MovingVariance))
	}
	return ops.BatchNormApply(x, moments, gamma, beta, attrs)
}

// batchMoments returns the batch's packed moments (mean, biased variance,
// count) and registers the moving-statistics update.
func (l *BatchNormalization) batchMoments(tr *ops.Trace, x ops.Tensor) ops.Tensor {
	s := x.Shape()
	local := float32(s.Size() / s[len(s)-1])
	// Sums of x-K, K a sample of the batch (the replicas' first rows
	// averaged in synchronized mode), so the variance keeps its precision
	// when the mean is large against the spread. Sum, sum of squares and
	// count, packed: all-reduced together in synchronized mode.
	shift := ops.BatchNormShift(x)
	if l.synchronized {
		shift = ops.AllReduceSum(shift)
	}
	sums := ops.BatchNormShiftedSums(x, shift)
	if l.synchronized {
		sums = ops.AllReduceSum(sums)
	}
	// K + E[x-K] and E[(x-K)²] - E[x-K]², floored at 0 against rounding.
	moments := ops.BatchNormShiftedMoments(sums, shift)
	l.addMovingUpdate(tr, moments, local)
	return moments
}

// addMovingUpdate registers the hook that moves the moving statistics
// towards the batch's (read from the packed moments), averaging the batch
// statistics across replicas weighted by example count (a replica without
// data weighs 0).
func (l *BatchNormalization) addMovingUpdate(tr *ops.Trace, moments ops.Tensor, count float32) {
	mm, mv := l.MovingMean, l.MovingVariance
	momentum := float32(l.momentum)
	c := mm.Shape()[0]
	update := func(rc ops.ReplicaContext, m, v []float32, n float32) error {
		buf := make([]float32, 2*c+1)
		for i := 0; i < c; i++ {
			buf[i] = m[i] * n
			buf[c+i] = v[i] * n
		}
		buf[2*c] = n
		if rc.NumReplicas() > 1 {
			if err := rc.AllReduceSum([][]float32{buf}); err != nil {
				return fmt.Errorf("layers: BatchNormalization %q: %w", l.name, err)
			}
		}
		total := buf[2*c]
		if total == 0 {
			return nil
		}
		r := rc.ReplicaID()
		dm, dv := mm.Data(r), mv.Data(r)
		for i := 0; i < c; i++ {
			dm[i] = dm[i]*momentum + buf[i]/total*(1-momentum)
			dv[i] = dv[i]*momentum + buf[c+i]/total*(1-momentum)
		}
		return nil
	}
	tr.AddHook(ops.Hook{
		Name:   l.name + "/moving_statistics",
		Inputs: []ops.Tensor{moments},
		Run: func(rc ops.ReplicaContext, vals []ops.Value) error {
			return update(rc, vals[0].Data[:c], vals[0].Data[c:2*c], count)
		},
		Empty: func(rc ops.ReplicaContext) error {
			return update(rc, make([]float32, c), make([]float32, c), 0)
		},
	})
}

// GetConfig implements Layer.
func (l *BatchNormalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = -1
	m["momentum"] = l.momentum
	m["epsilon"] = l.epsilon
	m["center"] = l.center
	m["scale"] = l.scale
	m["synchronized"] = l.synchronized
	m["beta_initializer"] = initName(nil, "Zeros")
	m["gamma_initializer"] = initName(nil, "Ones")
	m["moving_mean_initializer"] = initName(nil, "Zeros")
	m["moving_variance_initializer"] = initName(nil, "Ones")
	return m
}
