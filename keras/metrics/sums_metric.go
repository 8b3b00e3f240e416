package metrics

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gokeras/gokeras/ops"
)

// sumsMetric is the plumbing of the metrics whose state is a vector of
// weighted sums that a result is computed from (RootMeanSquaredError,
// R2Score, F1Score, MeanIoU): Keras' metric variables.
type sumsMetric struct {
	mu         sync.Mutex
	kind, name string
	state      []float64
	check      func(ts, ps ops.Shape) error
	// accumulate adds the update of labels t and predictions p (w: one
	// weight per example, nil for 1) to st, sizing it on the first update
	// when it is nil.
	accumulate func(st []float64, t, p []float32, ts, ps ops.Shape, w []float32) ([]float64, error)
	// results is the metric's value(s) of state st, Keras' result().
	results func(st []float64) []float64
	cfg     map[string]any
}

// Name implements [Metric].
func (m *sumsMetric) Name() string { return m.name }

// GetConfig implements [Metric].
func (m *sumsMetric) GetConfig() map[string]any {
	c := map[string]any{"name": m.name, "dtype": "float32"}
	for k, v := range m.cfg {
		c[k] = v
	}
	return c
}

// ResetState implements [Metric].
func (m *sumsMetric) ResetState() {
	m.mu.Lock()
	clear(m.state)
	m.mu.Unlock()
}

// State implements [Reducible]: the sums, in Keras' variable order.
func (m *sumsMetric) State() []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.state)
}

// ResultOf implements [Reducible]: the result of state s (its first
// value for a metric of several, see Results).
func (m *sumsMetric) ResultOf(s []float64) float64 {
	r := m.results(s)
	if len(r) == 0 {
		return 0
	}
	if len(r) == 1 {
		return r[0]
	}
	var sum float64
	for _, v := range r {
		sum += v
	}
	return sum / float64(len(r))
}

// Result implements [Metric]. A metric with one value per class or output
// (F1Score without Average, R2Score without ClassAggregation) reports
// their mean; Results has each.
func (m *sumsMetric) Result() float64 { return m.ResultOf(m.State()) }

// Results is Keras' result(): one value, or one per class or output.
func (m *sumsMetric) Results() []float64 { return m.results(m.State()) }

// UpdateState implements [Metric]: it takes (yTrue, yPred), or (yTrue,
// yPred, sampleWeight) with one weight per example.
func (m *sumsMetric) UpdateState(values ...ops.Tensor) {
	updateLabelState(m.kind, m.name, values, m.check, m.Update, m.UpdateWeighted)
}

// Update implements [LabelMetric].
func (m *sumsMetric) Update(yTrue, yPred ops.Value) error { return m.update(yTrue, yPred, nil) }

// UpdateWeighted implements [SampleWeighted]: each example counts w times.
func (m *sumsMetric) UpdateWeighted(yTrue, yPred, sampleWeight ops.Value) error {
	w, err := data("sample weights", sampleWeight)
	if err != nil {
		return &updateError{m.name, err}
	}
	ps, ws := yPred.Shape, sampleWeight.Shape
	if len(ps) == 0 || !(ws.Equal(ops.Shape{ps[0]}) || ws.Equal(ops.Shape{ps[0], 1})) {
		return &updateError{m.name, fmt.Errorf("sample weights of shape %v for labels %v and predictions %v; want one weight per example", ws, yTrue.Shape, ps)}
	}
	return m.update(yTrue, yPred, w)
}

func (m *sumsMetric) update(yTrue, yPred ops.Value, w []float32) error {
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
	m.mu.Lock()
	defer m.mu.Unlock()
	st, err := m.accumulate(m.state, t, p, yTrue.Shape, yPred.Shape, w)
	if err != nil {
		return &updateError{m.name, err}
	}
	m.state = st
	return nil
}

// weightOf returns the weight of element i of n elements for per-example
// weights w (1 when w is nil).
func weightOf(w []float32, n int) func(i int) float64 {
	if w == nil {
		return func(int) float64 { return 1 }
	}
	per := max(n/len(w), 1)
	return func(i int) float64 { return float64(w[i/per]) }
}

// divNoNaN is a/b, or 0 where b is 0 (Keras' divide_no_nan).
func divNoNaN(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
