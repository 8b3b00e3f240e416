package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestDotConformance(t *testing.T) {
	layertest.RunN(t, layers.NewDot([]int{1}), []ops.Shape{{2, 3}, {2, 3}}, ops.Shape{2, 1}, 0)
	layertest.RunN(t, layers.NewDot([]int{1, 2}), []ops.Shape{{2, 3, 5}, {2, 4, 3}}, ops.Shape{2, 5, 4}, 0)
	layertest.RunN(t, layers.NewDot([]int{-1}, layers.WithNormalize(true)), []ops.Shape{{2, 3, 4}, {2, 2, 4}}, ops.Shape{2, 3, 2}, 0)
	layertest.RunN(t, layers.NewDot([]int{2, 1}), []ops.Shape{{2, 3, 4, 2}, {2, 4}}, ops.Shape{2, 3, 2}, 0)
}

func TestDotValues(t *testing.T) {
	// (1, 2, 2) · (1, 2, 2) over axes (1, 1): x^T y per sample.
	x := ops.Value{Shape: ops.Shape{1, 2, 2}, Data: []float32{1, 2, 3, 4}}
	y := ops.Value{Shape: ops.Shape{1, 2, 2}, Data: []float32{5, 6, 7, 8}}
	got := layertest.Forward(t, layers.NewDot([]int{1}), false, x, y)
	layertest.AllClose(t, "x^T y", got.Data, []float64{1*5 + 3*7, 1*6 + 3*8, 2*5 + 4*7, 2*6 + 4*8}, 1e-6)
	// Cosine similarity of vectors; a zero vector gives 0, not NaN.
	a := ops.Value{Shape: ops.Shape{3, 2}, Data: []float32{3, 4, 1, 0, 0, 0}}
	b := ops.Value{Shape: ops.Shape{3, 2}, Data: []float32{4, 3, -2, 0, 1, 1}}
	got = layertest.Forward(t, layers.NewDot([]int{1}, layers.WithNormalize(true)), false, a, b)
	layertest.AllClose(t, "cosine", got.Data, []float64{24.0 / 25, -1, 0}, 1e-6)
}

func TestDotErrors(t *testing.T) {
	if err := layers.NewDot(nil).Err(); err == nil {
		t.Error("Dot without axes made")
	}
	if err := layers.NewDot([]int{1, 2, 3}).Err(); err == nil {
		t.Error("Dot with three axes made")
	}
	a, b := layers.Input([]int{3, 4}), layers.Input([]int{5, 4})
	wantErr(t, layers.Apply(layers.NewDot([]int{1}, layers.WithName("d1")), a, b).Err(), "d1", "incompatible", "3", "5")
	wantErr(t, layers.Apply(layers.NewDot([]int{0}, layers.WithName("d0")), a, b).Err(), "d0", "axis 0")
	wantErr(t, layers.Apply(layers.NewDot([]int{4}, layers.WithName("d4")), a, b).Err(), "d4", "out of range")
	wantErr(t, layers.Apply(layers.NewDot([]int{2}, layers.WithName("d5")), a).Err(), "d5", "exactly 2 inputs")
	if y := layers.DotTensors(a, b, []int{2}); y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 3, 5}) {
		t.Errorf("dot over the features: shape %v, %v", y.Shape(), y.Err())
	}
}
