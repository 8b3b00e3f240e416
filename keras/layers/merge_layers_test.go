package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The merge layers of issue 31: Average, Subtract, Maximum, Minimum
// (Dot has dot_test.go).

func TestMergeLayersConformance(t *testing.T) {
	two := []ops.Shape{{2, 3}, {2, 3}}
	three := []ops.Shape{{2, 2, 3}, {2, 2, 3}, {2, 2, 3}}
	layertest.RunN(t, layers.NewAverage(), three, ops.Shape{2, 2, 3}, 0)
	layertest.RunN(t, layers.NewAverage(), []ops.Shape{{2, 3, 4}, {2, 1, 4}}, ops.Shape{2, 3, 4}, 0)
	layertest.RunN(t, layers.NewSubtract(), two, ops.Shape{2, 3}, 0)
	layertest.RunN(t, layers.NewMaximum(), three, ops.Shape{2, 2, 3}, 0)
	layertest.RunN(t, layers.NewMinimum(), two, ops.Shape{2, 3}, 0)
}

func TestMergeLayersValues(t *testing.T) {
	a := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{1, 2, 3, 4}}
	b := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{10, -20, 3, 40}}
	c := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{-1, 0.5, 0, 100}}
	layertest.AllClose(t, "average", layertest.Forward(t, layers.NewAverage(), false, a, b, c).Data,
		[]float64{10.0 / 3, -17.5 / 3, 2, 48}, 1e-6)
	layertest.AllClose(t, "average of one", layertest.Forward(t, layers.NewAverage(), false, a).Data, []float64{1, 2, 3, 4}, 0)
	layertest.AllClose(t, "subtract", layertest.Forward(t, layers.NewSubtract(), false, a, b).Data, []float64{-9, 22, 0, -36}, 0)
	layertest.AllClose(t, "maximum", layertest.Forward(t, layers.NewMaximum(), false, a, b, c).Data, []float64{10, 2, 3, 100}, 0)
	layertest.AllClose(t, "minimum", layertest.Forward(t, layers.NewMinimum(), false, a, b, c).Data, []float64{-1, -20, 0, 4}, 0)
}

func TestMergeLayersFunctional(t *testing.T) {
	x1, x2, x3 := layers.Input([]int{4}), layers.Input([]int{4}), layers.Input([]int{4})
	for _, y := range []*layers.KerasTensor{
		layers.AverageTensors(x1, x2, x3), layers.SubtractTensors(x1, x2),
		layers.MaximumTensors(x1, x2), layers.MinimumTensors(x1, x2, x3),
	} {
		if y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 4}) {
			t.Errorf("%s: shape %v, err %v", y.Node().Layer.ClassName(), y.Shape(), y.Err())
		}
	}
	wantErr(t, layers.Apply(layers.NewSubtract(layers.WithName("s3")), x1, x2, x3).Err(), "Subtract", "s3", "exactly 2 inputs", "got 3")
	wantErr(t, layers.Apply(layers.NewMaximum(layers.WithName("m0"))).Err(), "m0")
	wantErr(t, layers.Apply(layers.NewMinimum(layers.WithName("mn")), x1, layers.Input([]int{5})).Err(), "mn", "(None, 4)", "(None, 5)")
}
