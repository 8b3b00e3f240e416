package metrics_test

import (
	"testing"

	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// A metric called on (y_true, y_pred) accumulates and returns its result,
// as Keras' m(y_true, y_pred): two calls give the result over both.
func TestCallMetric(t *testing.T) {
	m := metrics.NewBinaryAccuracy()
	y := tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float32{1, 0, 1, 0}))
	p := tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float32{0.9, 0.2, 0.4, 0.1}))
	got, err := metrics.Call(m, y, p)
	if err != nil {
		t.Fatal(err)
	}
	if got != 0.75 {
		t.Errorf("first call %v, want 0.75", got)
	}
	got, err = metrics.Call(m, ops.Value{Shape: ops.Shape{2, 1}, Data: []float32{1, 1}}, ops.Value{Shape: ops.Shape{2, 1}, Data: []float32{0.1, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	if got != 0.5 {
		t.Errorf("after two calls %v, want 3/6", got)
	}
	if _, err := metrics.Call(m, y, "nope"); err == nil {
		t.Error("a string accepted as predictions")
	}
}
