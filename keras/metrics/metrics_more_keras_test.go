package metrics_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

// kerasMetricMoreCase is one case of testdata/keras/metrics_more.json,
// written by tools/keras_reference/conv_more_vectors.py: a metric's
// config and its result after each update.
type kerasMetricMoreCase struct {
	Name    string
	Metric  string
	Config  map[string]any
	Kwargs  map[string]any
	Updates []struct {
		TrueShape    []int     `json:"true_shape"`
		YTrue        []float32 `json:"y_true"`
		PredShape    []int     `json:"pred_shape"`
		YPred        []float32 `json:"y_pred"`
		SampleWeight []float32 `json:"sample_weight"`
		Result       []float64
	}
}

// TestMetricsMoreMatchKeras makes each metric from Keras' config
// (ConfigOptions and Get, as loading a compiled model does), feeds it
// Keras' updates (with sample weights where Keras had them) and compares
// the result after each update with Keras' to 1e-5 (relative, absolute
// below magnitude 1): one number, or one per class (F1Score without
// average) or output (R2Score without class_aggregation), in Results.
func TestMetricsMoreMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasMetricMoreCase](t, "testdata/keras/metrics_more.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			cfg := map[string]any{}
			for k, v := range tc.Config {
				cfg[k] = v
			}
			for k, v := range tc.Kwargs {
				cfg[k] = v
			}
			opts, err := metrics.ConfigOptions(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := metrics.Get(tc.Metric, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := m.GetConfig()
			for k := range tc.Config {
				if _, ok := got[k]; !ok {
					t.Errorf("config lacks %q: %v", k, got)
				}
			}
			for i, u := range tc.Updates {
				yt := ops.Value{Shape: ops.Shape(u.TrueShape), Data: u.YTrue}
				yp := ops.Value{Shape: ops.Shape(u.PredShape), Data: u.YPred}
				if u.SampleWeight != nil {
					sw, ok := m.(metrics.SampleWeighted)
					if !ok {
						t.Fatalf("%T takes no sample weights", m)
					}
					err = sw.UpdateWeighted(yt, yp, ops.Value{Shape: ops.Shape{len(u.SampleWeight)}, Data: u.SampleWeight})
				} else {
					err = m.Update(yt, yp)
				}
				if err != nil {
					t.Fatal(err)
				}
				res := []float64{m.Result()}
				if len(u.Result) > 1 {
					rs, ok := m.(interface{ Results() []float64 })
					if !ok {
						t.Fatalf("%T has no Results", m)
					}
					res = rs.Results()
					var mean float64
					for _, v := range res {
						mean += v
					}
					if r := m.Result(); len(res) > 0 && math.Abs(r-mean/float64(len(res))) > 1e-12 {
						t.Errorf("Result %v is not the mean of Results %v", r, res)
					}
				}
				if len(res) != len(u.Result) {
					t.Fatalf("update %d: %d results, Keras %d", i, len(res), len(u.Result))
				}
				for j, want := range u.Result {
					if e := math.Abs(res[j]-want) / math.Max(1, math.Abs(want)); !(e <= 1e-5) {
						t.Errorf("update %d: result[%d] = %v, Keras %v", i, j, res[j], want)
					}
				}
			}
		})
	}
}
