package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestAddConformance(t *testing.T) {
	layertest.RunN(t, layers.NewAdd(), []ops.Shape{{2, 3}, {2, 3}}, ops.Shape{2, 3}, 0)
	layertest.RunN(t, layers.NewAdd(), []ops.Shape{{2, 2, 2, 3}, {2, 2, 2, 3}, {2, 2, 2, 3}}, ops.Shape{2, 2, 2, 3}, 0)
}

func TestAddValues(t *testing.T) {
	a := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{1, 2, 3, 4}}
	b := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{10, 20, 30, 40}}
	c := ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{-1, 0.5, 0, 100}}
	y := layertest.Forward(t, layers.NewAdd(), false, a, b, c)
	layertest.AllClose(t, "add", y.Data, []float64{10, 22.5, 33, 144}, 0)
}

func TestAddFunctional(t *testing.T) {
	x1, x2 := layers.Input([]int{4}), layers.Input([]int{4})
	y := layers.AddTensors(x1, x2)
	if y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 4}) {
		t.Fatalf("shape %v, err %v", y.Shape(), y.Err())
	}
	if n := y.Node(); n.Layer.ClassName() != "Add" || len(n.Inputs) != 2 {
		t.Errorf("node %+v", n)
	}
	wantErr(t, layers.Apply(layers.NewAdd(layers.WithName("a1")), x1).Err(), "Add", "a1", "2 inputs")
	wantErr(t, layers.Apply(layers.NewAdd(layers.WithName("a2")), x1, layers.Input([]int{5})).Err(), "Add", "a2", "(None, 4)", "(None, 5)")
}
