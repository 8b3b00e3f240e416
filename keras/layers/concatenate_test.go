package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestConcatenateConformance(t *testing.T) {
	layertest.RunN(t, layers.NewConcatenate(), []ops.Shape{{2, 3}, {2, 4}}, ops.Shape{2, 7}, 0)
	layertest.RunN(t, layers.NewConcatenate(layers.WithAxis(1)), []ops.Shape{{2, 2, 2, 1}, {2, 3, 2, 1}, {2, 1, 2, 1}}, ops.Shape{2, 6, 2, 1}, 0)
	layertest.RunN(t, layers.NewConcatenate(layers.WithAxis(-2)), []ops.Shape{{2, 2, 3}, {2, 1, 3}}, ops.Shape{2, 3, 3}, 0)
}

func TestConcatenateValues(t *testing.T) {
	a := ops.Value{Shape: ops.Shape{2, 1, 2}, Data: []float32{1, 2, 3, 4}}
	b := ops.Value{Shape: ops.Shape{2, 1, 1}, Data: []float32{5, 6}}
	y := layertest.Forward(t, layers.NewConcatenate(), false, a, b)
	layertest.AllClose(t, "concatenate -1", y.Data, []float64{1, 2, 5, 3, 4, 6}, 0)
	c := ops.Value{Shape: ops.Shape{2, 2, 2}, Data: []float32{7, 8, 9, 10, 11, 12, 13, 14}}
	y = layertest.Forward(t, layers.NewConcatenate(layers.WithAxis(1)), false, a, c)
	layertest.AllClose(t, "concatenate 1", y.Data, []float64{1, 2, 7, 8, 9, 10, 3, 4, 11, 12, 13, 14}, 0)
	if !y.Shape.Equal(ops.Shape{2, 3, 2}) {
		t.Errorf("shape %v", y.Shape)
	}
}

func TestConcatenateFunctional(t *testing.T) {
	x1, x2 := layers.Input([]int{3}), layers.Input([]int{4})
	y := layers.ConcatenateTensors(-1, x1, x2)
	if y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 7}) {
		t.Fatalf("shape %v, err %v", y.Shape(), y.Err())
	}
	if n := y.Node(); n.Layer.ClassName() != "Concatenate" || len(n.Inputs) != 2 {
		t.Errorf("node %+v", n)
	}
	if cfg := y.Node().Layer.GetConfig(); cfg["axis"] != -1 {
		t.Errorf("config %v", cfg)
	}
	i1, i2 := layers.Input([]int{2, 3}), layers.Input([]int{4, 3})
	wantErr(t, layers.Apply(layers.NewConcatenate(layers.WithName("c1")), i1, i2).Err(), "Concatenate", "c1", "(None, 2, 3)", "(None, 4, 3)")
	wantErr(t, layers.Apply(layers.NewConcatenate(layers.WithAxis(3), layers.WithName("c2")), i1, i2).Err(), "Concatenate", "c2", "axis 3")
	if y := layers.ConcatenateTensors(1, i1, i2); y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 6, 3}) {
		t.Errorf("axis 1: shape %v, err %v", y.Shape(), y.Err())
	}
	wantErr(t, layers.NewConcatenate(layers.WithUseBias(true)).Err(), "Concatenate", "use_bias")
	_, err := layers.OutputShape(layers.NewConcatenate(), nil)
	wantErr(t, err, "Concatenate", "at least 1")
}
