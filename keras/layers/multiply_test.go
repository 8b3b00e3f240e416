package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestMultiplyConformance(t *testing.T) {
	layertest.RunN(t, layers.NewMultiply(), []ops.Shape{{2, 3}, {2, 3}}, ops.Shape{2, 3}, 0)
	layertest.RunN(t, layers.NewMultiply(), []ops.Shape{{2, 2, 2, 3}, {2, 2, 2, 3}, {2, 2, 2, 3}}, ops.Shape{2, 2, 2, 3}, 0)
}

func TestMultiplyValues(t *testing.T) {
	a := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{1, 2, 3, 4}}
	b := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{10, 20, 30, 40}}
	c := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{-1, 0.5, 0, 2}}
	y := layertest.Forward(t, layers.NewMultiply(), false, a, b, c)
	layertest.AllClose(t, "multiply", y.Data, []float64{-10, 20, 0, 320}, 0)
}

func TestMultiplyFunctional(t *testing.T) {
	x1, x2 := layers.Input([]int{4}), layers.Input([]int{4})
	y := layers.MultiplyTensors(x1, x2)
	if y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 4}) {
		t.Fatalf("shape %v, err %v", y.Shape(), y.Err())
	}
	if n := y.Node(); n.Layer.ClassName() != "Multiply" || len(n.Inputs) != 2 {
		t.Errorf("node %+v", n)
	}
	if cfg := y.Node().Layer.GetConfig(); cfg["name"] != y.Node().Layer.Name() {
		t.Errorf("config %v", cfg)
	}
	wantErr(t, layers.Apply(layers.NewMultiply(layers.WithName("m1")), x1).Err(), "Multiply", "m1", "2 inputs")
	wantErr(t, layers.Apply(layers.NewMultiply(layers.WithName("m2")), x1, layers.Input([]int{5})).Err(), "Multiply", "m2", "(None, 4)", "(None, 5)")
	wantErr(t, layers.NewMultiply(layers.WithAxis(1)).Err(), "Multiply", "axis")
}
