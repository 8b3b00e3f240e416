package metrics

import (
	"fmt"
	"github.com/gokeras/gokeras/internal/registry"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gokeras/gokeras/ops"
)

// Metric is a stateful Keras metric: it accumulates over updates and reports
// a float64 result until ResetState. Metrics are safe for concurrent use:
// replicas update them from their own goroutines.
type Metric interface {
	// Name is the metric's display name, the key of its result in logs.
	Name() string
	// Result is the metric's current value; 0 before any update.
	Result() float64
	// ResetState forgets every update.
	ResetState()
	// GetConfig returns the metric's Keras config (name, dtype, and the
	// metric's own keys such as threshold).
	GetConfig() map[string]any
	// UpdateState is Keras' metric.update_state, the one update every
	// metric has: while a step is traced it registers a hook that
	// accumulates the tensors' values after each replay. Label metrics take
	// (yTrue, yPred), [Mean] takes (values); so a custom step updates
	// every metric of a model in one loop:
	//
	//	for _, mt := range m.Metrics() {
	//		if mt.Name() == "loss" {
	//			mt.UpdateState(loss)
	//		} else {
	//			mt.UpdateState(y, yPred)
	//		}
	//	}
	//
	// A wrong number of tensors, or shapes that do not fit, panic with an
	// [*ops.Error] naming the metric (recovered into an error at the model
	// boundary), as every error of a trace does.
	UpdateState(values ...ops.Tensor)
}

// Reducible is a metric whose state is a vector of sums, as every metric
// of this package is (a total and a count): the states of metrics that
// saw different examples (one per worker of a multi-process strategy) add
// up to the state of one metric that saw them all, as tf.distribute sums
// metric variables over replicas before their result.
type Reducible interface {
	Metric
	// State returns the metric's sums.
	State() []float64
	// ResultOf is the result of a metric whose state is s.
	ResultOf(s []float64) float64
}

// LabelMetric is a metric of (y_true, y_pred) pairs, the kind Compile
// accepts.
type LabelMetric interface {
	// Metric's UpdateState takes (yTrue, yPred) and registers, in their
	// trace, a hook that calls Update with their values after each
	// replay. Shapes that do not fit panic with an [*ops.Error].
	Metric
	// Update accumulates concrete labels and predictions now. It returns
	// an error naming the metric and both shapes when they do not fit.
	Update(yTrue, yPred ops.Value) error
}

// Option configures a metric. Options a metric has no use for make its
// constructor panic with an [*ops.Error], as Keras rejects unknown
// arguments.
type Option func(*config)

type config struct {
	name           string
	threshold      float64
	fromLogits     bool
	labelSmoothing float64
	set            []string
	confusionConfig
	more moreConfig // metrics_more_options.go
}

func (c *config) mark(key string) {
	if !slices.Contains(c.set, key) {
		c.set = append(c.set, key)
	}
}

// Name sets the metric's display name. An empty name keeps the default.
func Name(name string) Option {
	return func(c *config) {
		if name != "" {
			c.name = name
		}
		c.mark("name")
	}
}

// Threshold sets the value above which BinaryAccuracy counts a prediction
// as 1 (default 0.5).
func Threshold(t float64) Option {
	return func(c *config) { c.threshold = t; c.mark("threshold") }
}

// FromLogits says whether the predictions the crossentropy metrics see are
// logits (true) or probabilities (false, the default).
func FromLogits(b bool) Option {
	return func(c *config) { c.fromLogits = b; c.mark("from_logits") }
}

// LabelSmoothing in [0, 1] smooths the labels of the categorical and binary
// crossentropy metrics as the losses of the same name do (default 0).
func LabelSmoothing(ls float64) Option {
	return func(c *config) { c.labelSmoothing = ls; c.mark("label_smoothing") }
}

// newConfig applies opts over the defaults, panicking on options kind does
// not take and on invalid values.
func newConfig(kind, defaultName string, allowed []string, opts []Option) config {
	c := config{name: defaultName, threshold: 0.5, confusionConfig: defaultConfusion}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	for _, k := range c.set {
		if k != "name" && !slices.Contains(allowed, k) {
			fail(kind, "option %s does not apply to %s", k, kind)
		}
	}
	if math.IsNaN(c.threshold) || math.IsInf(c.threshold, 0) {
		fail(kind, "threshold %v is not a finite number", c.threshold)
	}
	if !(c.labelSmoothing >= 0 && c.labelSmoothing <= 1) {
		fail(kind, "label_smoothing %v is not in [0, 1]", c.labelSmoothing)
	}
	return c
}

func fail(kind, format string, args ...any) {
	panic(&ops.Error{Op: "metrics: " + kind, Msg: fmt.Sprintf(format, args...)})
}

// meanState is a weighted running mean in float64, safe for concurrent use.
type meanState struct {
	mu           sync.Mutex
	total, count float64
}

func (s *meanState) add(total, count float64) {
	s.mu.Lock()
	s.total += total
	s.count += count
	s.mu.Unlock()
}

// Result is total / count, or 0 while count is 0.
func (s *meanState) Result() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count == 0 {
		return 0
	}
	return s.total / s.count
}

// State implements [Reducible]: the total and the count.
func (s *meanState) State() []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return []float64{s.total, s.count}
}

// ResultOf implements [Reducible]: total / count, or 0 while count is 0.
func (s *meanState) ResultOf(st []float64) float64 {
	if len(st) != 2 || st[1] == 0 {
		return 0
	}
	return st[0] / st[1]
}

// ResetState zeroes the running totals.
func (s *meanState) ResetState() {
	s.mu.Lock()
	s.total, s.count = 0, 0
	s.mu.Unlock()
}

// addUpdateHook registers run to be called with the values of inputs after
// every replay of their trace.
func addUpdateHook(kind, name string, inputs []ops.Tensor, run func(vals []ops.Value) error) {
	for _, in := range inputs {
		if in.IsNone() {
			fail(kind, "none tensor as input")
		}
		if in.Trace() != inputs[0].Trace() && !(in.IsEager() && inputs[0].IsEager()) { // eager hooks run at once on each input's value
			fail(kind, "inputs %v and %v are from different traces", inputs[0].Shape(), in.Shape())
		}
	}
	inputs[0].Trace().AddHook(ops.Hook{
		Name:   "metrics: " + name,
		Inputs: slices.Clone(inputs),
		Run: func(_ ops.ReplicaContext, vals []ops.Value) error {
			err := run(vals)
			if ue, ok := err.(*updateError); ok {
				// The hook's name already says which metric failed.
				return ue.err
			}
			return err
		},
	})
}

// checkArity panics with an [*ops.Error] naming the metric unless got
// holds one tensor per name of want.
func checkArity(kind, name string, got []ops.Tensor, want ...string) {
	if len(got) != len(want) {
		fail(kind, "%s: UpdateState takes %d tensor(s) (%s), got %d", name, len(want), strings.Join(want, ", "), len(got))
	}
}

// updateError is an error of Update: err prefixed by the metric's name.
type updateError struct {
	name string
	err  error
}

func (e *updateError) Error() string { return "metrics: " + e.name + ": " + e.err.Error() }

func (e *updateError) Unwrap() error { return e.err }

// data returns v's elements, or an error if it holds fewer than its shape
// says.
func data(what string, v ops.Value) ([]float32, error) {
	n := v.Shape.Size()
	if len(v.Data) < n {
		return nil, fmt.Errorf("%s of shape %v hold %d values, want %d", what, v.Shape, len(v.Data), n)
	}
	return v.Data[:n], nil
}

// labelMetric is the state and plumbing shared by the metrics of labels
// and predictions: each is the mean over examples of a per-example value.
type labelMetric struct {
	meanState
	kind string // Keras class name, for errors
	name string
	// check reports whether labels of shape ts fit predictions of shape ps.
	check func(ts, ps ops.Shape) error
	// eval returns the sum of the metric's values over units (elements or
	// rows of the predictions), their number, and the number of examples
	// they belong to (the first axis of the units' shape, 1 for a single
	// unit), so that each example weighs the same.
	eval  func(yTrue, yPred []float32, ts, ps ops.Shape) (sum float64, units, examples int, err error)
	extra map[string]any
}

func (m *labelMetric) init(kind string, c config, check func(ts, ps ops.Shape) error,
	eval func(yTrue, yPred []float32, ts, ps ops.Shape) (float64, int, int, error), extra map[string]any) {
	m.kind, m.name, m.check, m.eval, m.extra = kind, c.name, check, eval, extra
}

// Name implements [Metric].
func (m *labelMetric) Name() string { return m.name }

// GetConfig implements [Metric].
func (m *labelMetric) GetConfig() map[string]any {
	c := map[string]any{"name": m.name, "dtype": "float32"}
	for k, v := range m.extra {
		c[k] = v
	}
	return c
}

// UpdateState implements [Metric]: it takes (yTrue, yPred), or (yTrue,
// yPred, sampleWeight) as Keras' update_state(y_true, y_pred,
// sample_weight) with one weight per example (see [SampleWeighted]).
func (m *labelMetric) UpdateState(values ...ops.Tensor) {
	updateLabelState(m.kind, m.name, values, m.check, m.Update, m.UpdateWeighted)
}

// SampleWeighted is a label metric that takes Keras' sample_weight: its
// result is the weighted mean of its per-example values,
// sum(w*value)/sum(w) (0 while the weights sum to 0), as Keras'
// MeanMetricWrapper with sample weights.
type SampleWeighted interface {
	LabelMetric
	// UpdateWeighted accumulates concrete labels and predictions with one
	// weight per example (shape (N,) or (N, 1)).
	UpdateWeighted(yTrue, yPred, sampleWeight ops.Value) error
}

// UpdateWeighted implements [SampleWeighted]: each example's value (the
// fraction of its units that count, as in Update) weighs w.
func (m *labelMetric) UpdateWeighted(yTrue, yPred, sampleWeight ops.Value) error {
	t, err := data("labels", yTrue)
	if err != nil {
		return &updateError{m.name, err}
	}
	p, err := data("predictions", yPred)
	if err != nil {
		return &updateError{m.name, err}
	}
	w, err := data("sample weights", sampleWeight)
	if err != nil {
		return &updateError{m.name, err}
	}
	if err := m.check(yTrue.Shape, yPred.Shape); err != nil {
		return &updateError{m.name, err}
	}
	ts, ps := yTrue.Shape, yPred.Shape
	if len(ts) == 0 || len(ps) == 0 || ts[0] != ps[0] || len(w) != ps[0] {
		return &updateError{m.name, fmt.Errorf("sample weights of shape %v for labels %v and predictions %v; want one weight per example", sampleWeight.Shape, ts, ps)}
	}
	n := ps[0]
	if n == 0 {
		return nil
	}
	rowT, rowP := len(t)/n, len(p)/n
	ts1, ps1 := append(ops.Shape{1}, ts[1:]...), append(ops.Shape{1}, ps[1:]...)
	var total, count float64
	for i := 0; i < n; i++ {
		s, units, _, err := m.eval(t[i*rowT:(i+1)*rowT], p[i*rowP:(i+1)*rowP], ts1, ps1)
		if err != nil {
			return &updateError{m.name, err}
		}
		if units > 0 {
			total += float64(w[i]) * s / float64(units)
			count += float64(w[i])
		}
	}
	m.add(total, count)
	return nil
}

// Update implements [LabelMetric].
func (m *labelMetric) Update(yTrue, yPred ops.Value) error {
	t, err := data("labels", yTrue)
	if err != nil {
		return &updateError{m.name, err}
	}
	p, err := data("predictions", yPred)
	if err != nil {
		return &updateError{m.name, err}
	}
	if err := m.check(yTrue.Shape, yPred.Shape); err != nil {
		return &updateError{m.name, err}
	}
	if len(p) == 0 {
		return nil
	}
	s, units, examples, err := m.eval(t, p, yTrue.Shape, yPred.Shape)
	if err != nil {
		return &updateError{m.name, err}
	}
	if units > 0 {
		m.add(s*float64(examples)/float64(units), float64(examples))
	}
	return nil
}

// examplesOf is the number of examples in units of shape s: its first
// dimension, or 1 for a scalar.
func examplesOf(s ops.Shape) int {
	if len(s) == 0 {
		return 1
	}
	return s[0]
}

// trailingOne reports whether a is b with an extra trailing axis of size 1.
func trailingOne(a, b ops.Shape) bool {
	return len(a) == len(b)+1 && a[len(b)] == 1 && a[:len(b)].Equal(b)
}

// sameShape accepts equal shapes and shapes that differ by a trailing axis
// of size 1 ((N,) against (N, 1)), which are compared element by element.
func sameShape(ts, ps ops.Shape) error {
	if ts.Equal(ps) || trailingOne(ts, ps) || trailingOne(ps, ts) {
		return nil
	}
	return fmt.Errorf("labels of shape %v do not match predictions of shape %v", ts, ps)
}

// sparseShape accepts class-id labels for predictions (..., C): labels of
// shape (...) or (..., 1).
func sparseShape(ts, ps ops.Shape) error {
	if len(ps) == 0 {
		return fmt.Errorf("predictions must have a class axis, got a scalar (labels of shape %v)", ts)
	}
	want := ps[:len(ps)-1]
	if ts.Equal(want) || trailingOne(ts, want) {
		return nil
	}
	return fmt.Errorf("labels of shape %v do not match predictions of shape %v: want labels of shape %v or %v",
		ts, ps, want, append(want.Clone(), 1))
}

// categoricalShape accepts labels of the predictions' shape, with a class
// axis.
func categoricalShape(ts, ps ops.Shape) error {
	if len(ps) == 0 {
		return fmt.Errorf("predictions must have a class axis, got a scalar (labels of shape %v)", ts)
	}
	return sameShape(ts, ps)
}

// rows splits predictions of shape ps into rows of the last axis: their
// number, length, and the number of examples.
func rows(ps ops.Shape) (n, c, examples int) {
	c = ps[len(ps)-1]
	if c == 0 {
		return 0, 0, 0
	}
	return ps.Size() / c, c, examplesOf(ps[:len(ps)-1])
}

// argmax returns the index of the first maximum of x, as tf.argmax.
func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// classOf converts a float32 class id to an index in [0, n).
func classOf(label float32, n int) (int, error) {
	k := int(label)
	if float32(k) != label || k < 0 || k >= n {
		return 0, fmt.Errorf("label %v is not a class id in [0, %d)", label, n)
	}
	return k, nil
}

var (
	_ LabelMetric = (*Accuracy)(nil)
	_ LabelMetric = (*SparseCategoricalAccuracy)(nil)
	_ LabelMetric = (*CategoricalAccuracy)(nil)
	_ LabelMetric = (*BinaryAccuracy)(nil)
	_ LabelMetric = (*MeanSquaredError)(nil)
	_ LabelMetric = (*MeanAbsoluteError)(nil)
	_ LabelMetric = (*SparseCategoricalCrossentropy)(nil)
	_ LabelMetric = (*CategoricalCrossentropy)(nil)
	_ LabelMetric = (*BinaryCrossentropy)(nil)
	_ LabelMetric = (*MeanMetricWrapper)(nil)
	_ Metric      = (*Mean)(nil)
	_ Reducible   = (*Mean)(nil)
	_ Reducible   = (*Accuracy)(nil)
	_ Reducible   = (*Precision)(nil)
	_ Reducible   = (*Recall)(nil)
	_ Reducible   = (*AUC)(nil)
	_ Reducible   = (*TruePositives)(nil)
	_ Reducible   = (*FalsePositives)(nil)
	_ Reducible   = (*TrueNegatives)(nil)
	_ Reducible   = (*FalseNegatives)(nil)
	_ Reducible   = (*TopKCategoricalAccuracy)(nil)
	_ Reducible   = (*SparseTopKCategoricalAccuracy)(nil)
)

var ctors = map[string]func(...Option) LabelMetric{
	"accuracy":                        func(o ...Option) LabelMetric { return NewAccuracy(o...) },
	"sparse_categorical_accuracy":     func(o ...Option) LabelMetric { return NewSparseCategoricalAccuracy(o...) },
	"categorical_accuracy":            func(o ...Option) LabelMetric { return NewCategoricalAccuracy(o...) },
	"binary_accuracy":                 func(o ...Option) LabelMetric { return NewBinaryAccuracy(o...) },
	"mean_squared_error":              func(o ...Option) LabelMetric { return NewMeanSquaredError(o...) },
	"mean_absolute_error":             func(o ...Option) LabelMetric { return NewMeanAbsoluteError(o...) },
	"sparse_categorical_crossentropy": func(o ...Option) LabelMetric { return NewSparseCategoricalCrossentropy(o...) },
	"categorical_crossentropy":        func(o ...Option) LabelMetric { return NewCategoricalCrossentropy(o...) },
	"binary_crossentropy":             func(o ...Option) LabelMetric { return NewBinaryCrossentropy(o...) },
	"precision":                       func(o ...Option) LabelMetric { return NewPrecision(o...) },
	"recall":                          func(o ...Option) LabelMetric { return NewRecall(o...) },
	"auc":                             func(o ...Option) LabelMetric { return NewAUC(o...) },
	"top_k_categorical_accuracy":      func(o ...Option) LabelMetric { return NewTopKCategoricalAccuracy(o...) },
	"sparse_top_k_categorical_accuracy": func(o ...Option) LabelMetric {
		return NewSparseTopKCategoricalAccuracy(o...)
	},
	"true_positives":  func(o ...Option) LabelMetric { return NewTruePositives(o...) },
	"false_positives": func(o ...Option) LabelMetric { return NewFalsePositives(o...) },
	"true_negatives":  func(o ...Option) LabelMetric { return NewTrueNegatives(o...) },
	"false_negatives": func(o ...Option) LabelMetric { return NewFalseNegatives(o...) },
}

var aliases = map[string]string{
	"acc":                           "accuracy",
	"Accuracy":                      "accuracy",
	"SparseCategoricalAccuracy":     "sparse_categorical_accuracy",
	"CategoricalAccuracy":           "categorical_accuracy",
	"BinaryAccuracy":                "binary_accuracy",
	"mse":                           "mean_squared_error",
	"MSE":                           "mean_squared_error",
	"MeanSquaredError":              "mean_squared_error",
	"mae":                           "mean_absolute_error",
	"MAE":                           "mean_absolute_error",
	"MeanAbsoluteError":             "mean_absolute_error",
	"SparseCategoricalCrossentropy": "sparse_categorical_crossentropy",
	"CategoricalCrossentropy":       "categorical_crossentropy",
	"BinaryCrossentropy":            "binary_crossentropy",
	"Precision":                     "precision",
	"Recall":                        "recall",
	"AUC":                           "auc",
	"TopKCategoricalAccuracy":       "top_k_categorical_accuracy",
	"SparseTopKCategoricalAccuracy": "sparse_top_k_categorical_accuracy",
	"TruePositives":                 "true_positives",
	"FalsePositives":                "false_positives",
	"TrueNegatives":                 "true_negatives",
	"FalseNegatives":                "false_negatives",
}

// Get returns a new metric by its Keras name ("accuracy",
// "sparse_categorical_accuracy", "categorical_accuracy", "binary_accuracy",
// "mean_squared_error", "mean_absolute_error",
// "sparse_categorical_crossentropy", "categorical_crossentropy",
// "binary_crossentropy", "precision", "recall", "auc",
// "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy",
// "true_positives", "false_positives", "true_negatives",
// "false_negatives"), class name ("SparseCategoricalAccuracy", "AUC", ...) or
// alias ("acc", "mse", "MSE", "mae", "MAE"), configured by opts. The metric
// keeps its Keras default name (Get("mse") is "mean_squared_error") unless
// opts include Name.
//
// Get("accuracy") is the elementwise [Accuracy], as keras.metrics.get
// returns; to resolve "accuracy" from the shapes of labels and predictions
// the way Keras' compile does, use [AccuracyFor].
func Get(name string, opts ...Option) (LabelMetric, error) {
	return registry.Lookup("metrics", "metric", name, ctors, aliases, opts)
}

// AccuracyFor returns the accuracy Keras' compile picks for "accuracy" from
// the shapes of labels and predictions: BinaryAccuracy when predictions
// have one column (or are a vector), SparseCategoricalAccuracy when labels
// have fewer axes than predictions or a last axis of 1, and
// CategoricalAccuracy otherwise. Its name is "accuracy" unless opts say
// otherwise.
func AccuracyFor(yTrue, yPred ops.Shape, opts ...Option) LabelMetric {
	opts = append([]Option{Name("accuracy")}, opts...)
	switch {
	case len(yPred) <= 1 || yPred[len(yPred)-1] == 1:
		return NewBinaryAccuracy(opts...)
	case len(yTrue) < len(yPred) || len(yTrue) > 0 && yTrue[len(yTrue)-1] == 1:
		return NewSparseCategoricalAccuracy(opts...)
	}
	return NewCategoricalAccuracy(opts...)
}

// updateLabelState is UpdateState of a metric of (yTrue, yPred) with an
// optional third tensor of sample weights: it checks the arity and the
// shapes while tracing, then registers the hook that updates the state
// after each replay with update, or weighted when weights are given.
func updateLabelState(kind, name string, values []ops.Tensor, check func(yTrue, yPred ops.Shape) error,
	update func(yTrue, yPred ops.Value) error, weighted func(yTrue, yPred, w ops.Value) error) {
	if len(values) != 3 {
		checkArity(kind, name, values, "y_true", "y_pred")
	}
	yTrue, yPred := values[0], values[1]
	if yTrue.IsNone() || yPred.IsNone() {
		fail(kind, "none tensor as labels or predictions")
	}
	if err := check(yTrue.Shape(), yPred.Shape()); err != nil {
		fail(kind, "%v", err)
	}
	if len(values) == 3 {
		addUpdateHook(kind, name, values, func(v []ops.Value) error { return weighted(v[0], v[1], v[2]) })
		return
	}
	addUpdateHook(kind, name, []ops.Tensor{yTrue, yPred}, func(v []ops.Value) error { return update(v[0], v[1]) })
}
