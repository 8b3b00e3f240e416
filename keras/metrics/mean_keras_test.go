package metrics

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/ops"
)

// kerasMeanCase is one case of testdata/keras/mean.json, written by
// tools/keras_reference/gen_vectors.py: keras.metrics.Mean's result after
// each update_state(values, sample_weight) with a scalar weight.
type kerasMeanCase struct {
	Name, Metric string
	Updates      []struct {
		Shape  []int
		Values []float32
		Weight float64
		Result float64
	}
}

// TestMeanMatchesKeras feeds Mean Keras' values and weights and compares
// the result after each update with Keras' to 1e-6 relative.
func TestMeanMatchesKeras(t *testing.T) {
	for _, tc := range kerasvectors.Read[kerasMeanCase](t, "testdata/keras/mean.json") {
		t.Run(tc.Name, func(t *testing.T) {
			if tc.Metric != "Mean" {
				t.Fatalf("no case for Keras metric %s", tc.Metric)
			}
			m := NewMean()
			for i, u := range tc.Updates {
				if err := m.Update(ops.Value{Shape: ops.Shape(u.Shape), Data: u.Values}, u.Weight); err != nil {
					t.Fatal(err)
				}
				got := m.Result()
				if e := math.Abs(got-u.Result) / math.Max(1, math.Abs(u.Result)); !(e <= 1e-6) {
					t.Errorf("update %d: result %.9g, Keras %.9g", i+1, got, u.Result)
				}
			}
		})
	}
}
