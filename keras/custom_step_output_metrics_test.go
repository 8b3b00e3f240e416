package keras_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// namesStep is a custom train step that records the names of the
// metrics Model.Metrics lists when it runs.
type namesStep struct {
	*keras.Model
	seen *[]string
}

func (m namesStep) TrainStep(data []ops.Tensor) (ops.Tensor, error) {
	*m.seen = metricNames(m.Model.Metrics())
	preds := m.Call(data[:2], true)
	return ops.Mean(ops.Mean(preds[1], false), false), nil
}

func metricNames(ms []metrics.Metric) []string {
	var names []string
	for _, mt := range ms {
		names = append(names, mt.Name())
	}
	return names
}

// A custom train step on a two-output model compiled with per-output
// metrics finds them in Model.Metrics, as the built-in step's model lists
// them.
func TestCustomStepSeesPerOutputMetrics(t *testing.T) {
	cc := func() keras.CompileConfig {
		return keras.CompileConfig{Optimizer: optimizers.NewSGD(),
			Loss:                    map[string]string{"out_a": "sparse_categorical_crossentropy", "out_b": "mse"},
			MetricsByOutput:         map[string][]any{"out_a": {"accuracy"}, "out_b": {"mae"}},
			WeightedMetricsByOutput: map[string][]any{"out_b": {"mse"}}}
	}
	x, y, _ := twoInTwoOutData(8)
	layers.ClearSession()
	ref := twoInTwoOut(t)
	if err := ref.Compile(cc()); err != nil {
		t.Fatal(err)
	}
	if _, err := ref.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 4, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	// The per-output loss trackers appear once a step computes the
	// compiled loss (as Keras' CompileLoss metrics), which this one does not.
	var want []string
	for _, n := range metricNames(ref.Metrics()) {
		if n != "out_a_loss" && n != "out_b_loss" {
			want = append(want, n)
		}
	}

	layers.ClearSession()
	m := twoInTwoOut(t)
	var seen []string
	m.Override(namesStep{m, &seen})
	if err := m.Compile(cc()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 4, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	if len(want) < 4 || fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("a custom step saw metrics %v; the built-in step's model lists %v", seen, want)
	}
}
