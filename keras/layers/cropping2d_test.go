package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestCropping2DConformance(t *testing.T) {
	layertest.Run(t, layers.NewCropping2D(1, 2, 0, 1), ops.Shape{2, 6, 5, 2}, ops.Shape{2, 3, 4, 2}, 0)
	layertest.Run(t, layers.NewCropping2D(0, 0, 0, 0), ops.Shape{1, 3, 3, 1}, ops.Shape{1, 3, 3, 1}, 0)
}

func TestCropping2DValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 3, 4, 1}, Data: []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	y := layertest.Forward(t, layers.NewCropping2D(1, 0, 1, 2), false, x)
	if !y.Shape.Equal(ops.Shape{1, 2, 1, 1}) {
		t.Fatalf("shape %v", y.Shape)
	}
	layertest.AllClose(t, "Cropping2D", y.Data, []float64{5, 9}, 0)
}

func TestCropping2DErrors(t *testing.T) {
	if l := layers.NewCropping2D(-1, 0, 0, 0); l.Err() == nil {
		t.Error("negative cropping: no error")
	}
	if _, err := layers.OutputShape(layers.NewCropping2D(2, 1, 0, 0), []ops.Shape{{-1, 3, 5, 1}}); err == nil {
		t.Error("cropping everything: no error")
	}
}
