package losses

import (
	"fmt"
	"github.com/gokeras/gokeras/internal/registry"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// epsilon is Keras' backend epsilon, the clipping margin of probabilities.
const epsilon = 1e-7

// Loss is a Keras loss object: it turns labels and predictions into a loss
// tensor in the trace they belong to.
type Loss interface {
	// Name is the loss's name, by default Keras' snake-case one, such as
	// "sparse_categorical_crossentropy".
	Name() string
	// Call returns the per-example losses reduced as GetReduction says:
	// a scalar, or the per-example losses for ReductionNone.
	Call(yTrue, yPred ops.Tensor) ops.Tensor
	// PerExample returns the unreduced losses (Keras' Loss.call): one per
	// example, or one per position for predictions of rank > 2.
	PerExample(yTrue, yPred ops.Tensor) ops.Tensor
	// GetReduction is the reduction Call applies.
	GetReduction() ReductionKind
	// GetConfig returns the loss's Keras config: name, reduction and the
	// loss's own keys (from_logits, label_smoothing, axis).
	GetConfig() map[string]any
}

// Option configures a loss. Options a loss has no use for make its
// constructor panic with an [*ops.Error], as Keras rejects unknown
// arguments.
type Option func(*config)

type config struct {
	name           string
	reduction      ReductionKind
	fromLogits     bool
	labelSmoothing float64
	axis           int
	set            []string
	more           moreConfig // losses_more.go
}

func (c *config) mark(key string) {
	if !slices.Contains(c.set, key) {
		c.set = append(c.set, key)
	}
}

// FromLogits says whether predictions are logits (true) or probabilities
// (false, the default).
func FromLogits(b bool) Option {
	return func(c *config) { c.fromLogits = b; c.mark("from_logits") }
}

// Reduction sets how Call reduces the per-example losses (default
// [ReductionSumOverBatchSize]).
func Reduction(r ReductionKind) Option {
	return func(c *config) { c.reduction = r; c.mark("reduction") }
}

// Name sets the loss's name. An empty name keeps the default.
func Name(name string) Option {
	return func(c *config) {
		if name != "" {
			c.name = name
		}
		c.mark("name")
	}
}

// LabelSmoothing in [0, 1] moves the labels towards uniform: one-hot labels
// y become y*(1-ls) + ls/classes for categorical crossentropy, binary labels
// y*(1-ls) + ls/2 for binary crossentropy. Default 0.
func LabelSmoothing(ls float64) Option {
	return func(c *config) { c.labelSmoothing = ls; c.mark("label_smoothing") }
}

// Axis sets the class axis of categorical crossentropy and the axis binary
// crossentropy averages over (default -1, the last). Categorical
// crossentropy on logits supports only the last axis.
func Axis(axis int) Option {
	return func(c *config) { c.axis = axis; c.mark("axis") }
}

// base holds what every loss has: its Keras class name (for errors), name
// and reduction.
type base struct {
	kind      string
	name      string
	reduction ReductionKind
}

func (b *base) op() string { return "losses: " + b.kind }

func (b *base) fail(format string, args ...any) {
	panic(&ops.Error{Op: b.op(), Msg: fmt.Sprintf(format, args...)})
}

// Name implements [Loss].
func (b *base) Name() string { return b.name }

// GetReduction implements [Loss].
func (b *base) GetReduction() ReductionKind { return b.reduction }

func (b *base) baseConfig() map[string]any {
	return map[string]any{"name": b.name, "reduction": string(b.reduction)}
}

// newConfig applies opts over the defaults of loss kind, panicking on
// options kind does not take and on invalid values.
func newConfig(kind, defaultName string, allowed []string, opts []Option) (base, config) {
	c := config{name: defaultName, reduction: ReductionSumOverBatchSize, axis: -1}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	b := base{kind: kind, name: c.name, reduction: c.reduction}
	for _, k := range c.set {
		if k != "name" && k != "reduction" && !slices.Contains(allowed, k) {
			b.fail("option %s does not apply to %s", k, kind)
		}
	}
	if !c.reduction.Valid() {
		b.fail("invalid reduction %q: want %q, %q or %q", string(c.reduction), ReductionSumOverBatchSize, ReductionSum, ReductionNone)
	}
	if !(c.labelSmoothing >= 0 && c.labelSmoothing <= 1) {
		b.fail("label_smoothing %v is not in [0, 1]", c.labelSmoothing)
	}
	return b, c
}

// checkPair panics unless yTrue and yPred are tensors of one trace, or
// one of them is eager: eager tensors combine with each other, and one
// used in a traced step is a constant of that trace (ops/eager.go), as
// for every op.
func (b *base) checkPair(yTrue, yPred ops.Tensor) {
	switch {
	case yTrue.IsNone():
		b.fail("none tensor as labels")
	case yPred.IsNone():
		b.fail("none tensor as predictions")
	case yTrue.Trace() != yPred.Trace() && !yTrue.IsEager() && !yPred.IsEager():
		b.fail("labels %v and predictions %v are from different traces", yTrue.Shape(), yPred.Shape())
	}
}

// trailingOne reports whether a is b with an extra trailing axis of size 1.
func trailingOne(a, b ops.Shape) bool {
	return len(a) == len(b)+1 && a[len(b)] == 1 && a[:len(b)].Equal(b)
}

// matchLabels returns yTrue with yPred's shape. Shapes that differ only by
// a trailing axis of size 1 ((N,) against (N, 1) either way) are
// reconciled by reshaping the labels, so a vector of labels never
// broadcasts against a column of predictions; any other difference panics.
func (b *base) matchLabels(yTrue, yPred ops.Tensor) ops.Tensor {
	b.checkPair(yTrue, yPred)
	ts, ps := yTrue.Shape(), yPred.Shape()
	switch {
	case ts.Equal(ps):
		return yTrue
	case trailingOne(ts, ps), trailingOne(ps, ts):
		return ops.Reshape(yTrue, ps)
	}
	b.fail("labels of shape %v do not match predictions of shape %v", ts, ps)
	return ops.Tensor{}
}

// regressionLabels returns labels for an elementwise regression loss of
// predictions yPred: matchLabels' shapes, and labels of shape (N,) or
// (N, 1) against predictions (N, K), which are labels (N, 1) broadcast over
// the K columns, as Keras expands rank-1 labels of a rank-2 output and
// then broadcasts. The result broadcasts to yPred's shape.
func (b *base) regressionLabels(yTrue, yPred ops.Tensor) ops.Tensor {
	b.checkPair(yTrue, yPred)
	ts, ps := yTrue.Shape(), yPred.Shape()
	if len(ps) == 2 && len(ts) >= 1 && len(ts) <= 2 && ts[0] == ps[0] && (len(ts) == 1 || ts[1] == 1) && !ts.Equal(ps) {
		return ops.Reshape(yTrue, ops.Shape{ps[0], 1})
	}
	return b.matchLabels(yTrue, yPred)
}

// needRank checks the pair and that predictions are not scalars.
func (b *base) needRank(yTrue, yPred ops.Tensor) {
	b.checkPair(yTrue, yPred)
	if yPred.Rank() == 0 {
		b.fail("predictions must have at least one axis, got a scalar")
	}
}

// normAxis resolves a possibly negative axis against rank.
func (b *base) normAxis(axis int, shape ops.Shape) int {
	a := axis
	if a < 0 {
		a += len(shape)
	}
	if a < 0 || a >= len(shape) {
		b.fail("axis %d is out of range for predictions of shape %v", axis, shape)
	}
	return a
}

// probabilitiesAsLogits returns log(clip(p, eps, 1-eps)): softmax of it is
// the clipped probabilities renormalised, so it can stand for logits.
func probabilitiesAsLogits(p ops.Tensor) ops.Tensor {
	return ops.Log(ops.Clip(p, epsilon, 1-epsilon))
}

// SparseCategoricalCrossentropy is the crossentropy of integer class labels
// and predicted class scores. Labels hold class ids as float32 with shape
// (N,) or (N, 1); predictions have shape (N, C) (more generally labels
// (...) or (..., 1) against predictions (..., C)).
//
// With FromLogits(false), the default, predictions are probabilities: when
// they were computed as ops.Softmax(x) the loss is computed from x, which
// is exact even where the probabilities underflow; otherwise they are
// clipped to [1e-7, 1-1e-7] and their log is used as logits (so they are
// renormalised), as Keras 2 does.
type SparseCategoricalCrossentropy struct {
	base
	fromLogits bool
}

// NewSparseCategoricalCrossentropy makes the loss. Options: FromLogits,
// Reduction, Name.
func NewSparseCategoricalCrossentropy(opts ...Option) *SparseCategoricalCrossentropy {
	b, c := newConfig("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy", []string{"from_logits"}, opts)
	return &SparseCategoricalCrossentropy{base: b, fromLogits: c.fromLogits}
}

// PerExample implements [Loss]: losses of shape (N,).
func (l *SparseCategoricalCrossentropy) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.needRank(yTrue, yPred)
	ts, ps := yTrue.Shape(), yPred.Shape()
	want := ps[:len(ps)-1]
	switch {
	case ts.Equal(want):
	case trailingOne(ts, want):
		yTrue = ops.Reshape(yTrue, want)
	default:
		l.fail("labels of shape %v do not match predictions of shape %v: want labels of shape %v or %v",
			ts, ps, want, append(want.Clone(), 1))
	}
	logits := yPred
	if !l.fromLogits {
		if x, ok := ops.SoftmaxInput(yPred); ok {
			logits = x
		} else {
			logits = probabilitiesAsLogits(yPred)
		}
	}
	return ops.SparseSoftmaxCrossEntropyWithLogits(yTrue, logits)
}

// Call implements [Loss].
func (l *SparseCategoricalCrossentropy) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *SparseCategoricalCrossentropy) GetConfig() map[string]any {
	c := l.baseConfig()
	c["from_logits"] = l.fromLogits
	return c
}

// CategoricalCrossentropy is the crossentropy of one-hot (or soft) labels
// and predicted class scores, both of shape (N, C), classes on Axis.
//
// With FromLogits(false), the default, predictions are probabilities: when
// they were computed as ops.Softmax(x) (and the class axis is the last) the
// loss is computed from x; otherwise they are normalised to sum to 1 over
// the class axis, clipped to [1e-7, 1-1e-7], and -sum(y*log(p)) is taken.
type CategoricalCrossentropy struct {
	base
	fromLogits     bool
	labelSmoothing float64
	axis           int
}

// NewCategoricalCrossentropy makes the loss. Options: FromLogits,
// LabelSmoothing, Axis, Reduction, Name.
func NewCategoricalCrossentropy(opts ...Option) *CategoricalCrossentropy {
	b, c := newConfig("CategoricalCrossentropy", "categorical_crossentropy", []string{"from_logits", "label_smoothing", "axis"}, opts)
	return &CategoricalCrossentropy{base: b, fromLogits: c.fromLogits, labelSmoothing: c.labelSmoothing, axis: c.axis}
}

// PerExample implements [Loss]: the predictions' shape without the class
// axis.
func (l *CategoricalCrossentropy) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.needRank(yTrue, yPred)
	yTrue = l.matchLabels(yTrue, yPred)
	ps := yPred.Shape()
	ax := l.normAxis(l.axis, ps)
	last := ax == len(ps)-1
	if l.labelSmoothing > 0 {
		ls := l.labelSmoothing
		yTrue = ops.AddScalar(ops.Scale(yTrue, float32(1-ls)), float32(ls/float64(ps[ax])))
	}
	if l.fromLogits {
		if !last {
			l.fail("from_logits needs the class axis last: axis %d of predictions of shape %v", l.axis, ps)
		}
		return ops.SoftmaxCrossEntropyWithLogits(yTrue, yPred)
	}
	if last {
		if x, ok := ops.SoftmaxInput(yPred); ok {
			return ops.SoftmaxCrossEntropyWithLogits(yTrue, x)
		}
	}
	p := ops.Div(yPred, ops.Sum(yPred, true, ax))
	p = ops.Clip(p, epsilon, 1-epsilon)
	return ops.Neg(ops.Sum(ops.Mul(yTrue, ops.Log(p)), false, ax))
}

// Call implements [Loss].
func (l *CategoricalCrossentropy) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *CategoricalCrossentropy) GetConfig() map[string]any {
	c := l.baseConfig()
	c["from_logits"] = l.fromLogits
	c["label_smoothing"] = l.labelSmoothing
	c["axis"] = l.axis
	return c
}

// BinaryCrossentropy is the crossentropy of binary labels (0 or 1, or
// probabilities) and predictions of the same shape, computed elementwise
// and averaged over Axis (default the last).
//
// With FromLogits(false), the default, predictions are probabilities: when
// they were computed as ops.Sigmoid(x) the loss is computed stably from x;
// otherwise they are clipped to [1e-7, 1-1e-7] and
// -(y*log(p) + (1-y)*log(1-p)) is taken, as Keras 3 does.
type BinaryCrossentropy struct {
	base
	fromLogits     bool
	labelSmoothing float64
	axis           int
}

// NewBinaryCrossentropy makes the loss. Options: FromLogits,
// LabelSmoothing, Axis, Reduction, Name.
func NewBinaryCrossentropy(opts ...Option) *BinaryCrossentropy {
	b, c := newConfig("BinaryCrossentropy", "binary_crossentropy", []string{"from_logits", "label_smoothing", "axis"}, opts)
	return &BinaryCrossentropy{base: b, fromLogits: c.fromLogits, labelSmoothing: c.labelSmoothing, axis: c.axis}
}

// PerExample implements [Loss]: the predictions' shape without Axis.
func (l *BinaryCrossentropy) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.needRank(yTrue, yPred)
	yTrue = l.matchLabels(yTrue, yPred)
	ax := l.normAxis(l.axis, yPred.Shape())
	if l.labelSmoothing > 0 {
		ls := l.labelSmoothing
		yTrue = ops.AddScalar(ops.Scale(yTrue, float32(1-ls)), float32(ls/2))
	}
	var e ops.Tensor
	x, ok := yPred, l.fromLogits
	if !ok {
		x, ok = ops.SigmoidInput(yPred)
	}
	if ok {
		e = ops.SigmoidCrossEntropyWithLogits(yTrue, x)
	} else {
		// Keras 3: the log of the clipped probabilities (tf.keras 2
		// added epsilon inside the log as well).
		p := ops.Clip(yPred, epsilon, 1-epsilon)
		pos := ops.Mul(yTrue, ops.Log(p))
		neg := ops.Mul(ops.OneMinus(yTrue), ops.Log(ops.OneMinus(p)))
		e = ops.Neg(ops.Add(pos, neg))
	}
	return ops.Mean(e, false, ax)
}

// Call implements [Loss].
func (l *BinaryCrossentropy) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *BinaryCrossentropy) GetConfig() map[string]any {
	c := l.baseConfig()
	c["from_logits"] = l.fromLogits
	c["label_smoothing"] = l.labelSmoothing
	c["axis"] = l.axis
	return c
}

// MeanSquaredError is mean((y_pred - y_true)^2) over the last axis.
// Labels of shape (N,) or (N, 1) against predictions (N, K) are broadcast
// over the K columns, as Keras does.
type MeanSquaredError struct{ base }

// NewMeanSquaredError makes the loss. Options: Reduction, Name.
func NewMeanSquaredError(opts ...Option) *MeanSquaredError {
	b, _ := newConfig("MeanSquaredError", "mean_squared_error", nil, opts)
	return &MeanSquaredError{b}
}

// PerExample implements [Loss]: the predictions' shape without the last
// axis.
func (l *MeanSquaredError) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.needRank(yTrue, yPred)
	yTrue = l.regressionLabels(yTrue, yPred)
	return ops.Mean(ops.Square(ops.Sub(yPred, yTrue)), false, -1)
}

// Call implements [Loss].
func (l *MeanSquaredError) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *MeanSquaredError) GetConfig() map[string]any { return l.baseConfig() }

// MeanAbsoluteError is mean(|y_pred - y_true|) over the last axis, with
// labels broadcast as in [MeanSquaredError].
type MeanAbsoluteError struct{ base }

// NewMeanAbsoluteError makes the loss. Options: Reduction, Name.
func NewMeanAbsoluteError(opts ...Option) *MeanAbsoluteError {
	b, _ := newConfig("MeanAbsoluteError", "mean_absolute_error", nil, opts)
	return &MeanAbsoluteError{b}
}

// PerExample implements [Loss]: the predictions' shape without the last
// axis.
func (l *MeanAbsoluteError) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.needRank(yTrue, yPred)
	yTrue = l.regressionLabels(yTrue, yPred)
	return ops.Mean(ops.Abs(ops.Sub(yPred, yTrue)), false, -1)
}

// Call implements [Loss].
func (l *MeanAbsoluteError) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *MeanAbsoluteError) GetConfig() map[string]any { return l.baseConfig() }

// LossFunctionWrapper makes a [Loss] of a function computing per-example
// losses, the way Keras wraps loss functions given to compile.
type LossFunctionWrapper struct {
	base
	fn func(yTrue, yPred ops.Tensor) ops.Tensor
}

// NewLossFunctionWrapper wraps fn, which returns per-example losses, as a
// Loss named name. Options: Reduction, Name.
func NewLossFunctionWrapper(name string, fn func(yTrue, yPred ops.Tensor) ops.Tensor, opts ...Option) *LossFunctionWrapper {
	b, _ := newConfig("LossFunctionWrapper", name, nil, opts)
	if fn == nil {
		b.fail("nil loss function")
	}
	return &LossFunctionWrapper{base: b, fn: fn}
}

// PerExample implements [Loss] by calling the wrapped function.
func (l *LossFunctionWrapper) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.checkPair(yTrue, yPred)
	out := l.fn(yTrue, yPred)
	if out.IsNone() {
		l.fail("%s returned a none tensor for labels %v and predictions %v", l.name, yTrue.Shape(), yPred.Shape())
	}
	return out
}

// Call implements [Loss].
func (l *LossFunctionWrapper) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *LossFunctionWrapper) GetConfig() map[string]any { return l.baseConfig() }

var (
	_ Loss = (*SparseCategoricalCrossentropy)(nil)
	_ Loss = (*CategoricalCrossentropy)(nil)
	_ Loss = (*BinaryCrossentropy)(nil)
	_ Loss = (*MeanSquaredError)(nil)
	_ Loss = (*MeanAbsoluteError)(nil)
	_ Loss = (*LossFunctionWrapper)(nil)
)

var ctors = map[string]func(...Option) Loss{
	"sparse_categorical_crossentropy": func(o ...Option) Loss { return NewSparseCategoricalCrossentropy(o...) },
	"categorical_crossentropy":        func(o ...Option) Loss { return NewCategoricalCrossentropy(o...) },
	"binary_crossentropy":             func(o ...Option) Loss { return NewBinaryCrossentropy(o...) },
	"mean_squared_error":              func(o ...Option) Loss { return NewMeanSquaredError(o...) },
	"mean_absolute_error":             func(o ...Option) Loss { return NewMeanAbsoluteError(o...) },
}

var aliases = map[string]string{
	"SparseCategoricalCrossentropy": "sparse_categorical_crossentropy",
	"CategoricalCrossentropy":       "categorical_crossentropy",
	"BinaryCrossentropy":            "binary_crossentropy",
	"MeanSquaredError":              "mean_squared_error",
	"mse":                           "mean_squared_error",
	"MSE":                           "mean_squared_error",
	"MeanAbsoluteError":             "mean_absolute_error",
	"mae":                           "mean_absolute_error",
	"MAE":                           "mean_absolute_error",
}

// Get returns a new loss by its Keras name ("sparse_categorical_crossentropy",
// "categorical_crossentropy", "binary_crossentropy", "mean_squared_error",
// "mean_absolute_error"), class name ("SparseCategoricalCrossentropy", ...)
// or alias ("mse", "MSE", "mae", "MAE"), configured by opts. The loss keeps
// its Keras default name (Get("mse") is named "mean_squared_error") unless
// opts include Name. Unknown names and options the loss does not take are
// errors.
func Get(name string, opts ...Option) (Loss, error) {
	return registry.Lookup("losses", "loss", name, ctors, aliases, opts)
}
