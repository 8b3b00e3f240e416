package keras

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// Per-output metrics written into a compile config as Keras' dicts by
// output name read back into the same CompileConfig; Keras' list of one
// list per output reads as per-output Metrics.
func TestOutputMetricsConfigRoundTrip(t *testing.T) {
	layers.ClearSession()
	a := layers.Input([]int{2}, layers.WithName("a"))
	m, err := NewModel([]*layers.KerasTensor{a}, []*layers.KerasTensor{
		layers.Apply(layers.NewDense(3, layers.WithName("out_a")), a), layers.Apply(layers.NewDense(1, layers.WithName("out_b")), a)})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Loss: "mse", MetricsByOutput: map[string][]any{"out_a": {"accuracy"}, "out_b": {"mae", "mse"}},
		WeightedMetricsByOutput: map[string][]any{"out_b": {"mae"}}}); err != nil {
		t.Fatal(err)
	}
	cc := map[string]any{"metrics": nil, "weighted_metrics": nil}
	if err := m.outputMetricsConfig(cc); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cc)
	if string(b) != `{"metrics":{"out_a":["accuracy"],"out_b":["mae","mse"]},"weighted_metrics":{"out_b":["mae"]}}` {
		t.Errorf("compile config %s", b)
	}
	var back map[string]any
	_ = json.Unmarshal(b, &back)
	var cfg CompileConfig
	rest, err := outputMetricsFromConfig(back, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 0 || fmt.Sprint(cfg.MetricsByOutput) != "map[out_a:[accuracy] out_b:[mae mse]]" || fmt.Sprint(cfg.WeightedMetricsByOutput) != "map[out_b:[mae]]" {
		t.Errorf("read back %v %v, left %v", cfg.MetricsByOutput, cfg.WeightedMetricsByOutput, rest)
	}
	var cfg2 CompileConfig
	rest, err = outputMetricsFromConfig(map[string]any{"metrics": []any{[]any{"accuracy"}, []any{"mae"}}, "loss": "mse"}, &cfg2)
	if err != nil || fmt.Sprint(cfg2.Metrics) != "[[accuracy] [mae]]" || fmt.Sprint(rest) != "map[loss:mse]" {
		t.Errorf("list of lists: %v %v %v", cfg2.Metrics, rest, err)
	}
	cfg2.Loss = "mse"
	if err := m.Compile(cfg2); err != nil {
		t.Errorf("compiling what was read: %v", err)
	}
	var cfg3 CompileConfig
	if _, err := outputMetricsFromConfig(map[string]any{"metrics": map[string]any{"out_a": 3.0}}, &cfg3); err == nil {
		t.Error("a metric list that is a number: no error")
	}
}
