package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestFlattenConformance(t *testing.T) {
	layertest.Run(t, layers.NewFlatten(), ops.Shape{2, 3, 4, 5}, ops.Shape{2, 60}, 0)
	layertest.Run(t, layers.NewFlatten(), ops.Shape{3, 7}, ops.Shape{3, 7}, 0)
	// Keras flattens a (batch,) input to (batch, 1).
	layertest.Run(t, layers.NewFlatten(), ops.Shape{4}, ops.Shape{4, 1}, 0)
}

func TestFlattenKeepsOrder(t *testing.T) {
	x := seq(2*2*3*2, 1, 0)
	y := layertest.Forward(t, layers.NewFlatten(), false, ops.Value{Shape: ops.Shape{2, 2, 3, 2}, Data: x})
	if !y.Shape.Equal(ops.Shape{2, 12}) {
		t.Fatalf("shape %v", y.Shape)
	}
	want := make([]float64, len(x))
	for i, v := range x {
		want[i] = float64(v)
	}
	layertest.AllClose(t, "flatten", y.Data, want, 0)
}

func TestFlattenFunctional(t *testing.T) {
	y := layers.Apply(layers.NewFlatten(), layers.Input([]int{5, 5, 8}))
	if y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 200}) {
		t.Errorf("shape %v, err %v", y.Shape(), y.Err())
	}
}
