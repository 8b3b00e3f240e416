package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestPooling1DConformance(t *testing.T) {
	layertest.Run(t, layers.NewMaxPooling1D(), ops.Shape{2, 7, 3}, ops.Shape{2, 3, 3}, 0)
	layertest.Run(t, layers.NewMaxPooling1D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), ops.Shape{1, 8, 2}, ops.Shape{1, 4, 2}, 0)
	layertest.Run(t, layers.NewAveragePooling1D(), ops.Shape{2, 7, 3}, ops.Shape{2, 3, 3}, 0)
	layertest.Run(t, layers.NewAveragePooling1D(layers.WithPoolSize(3), layers.WithStrides(1), layers.WithPadding("same")), ops.Shape{1, 6, 2}, ops.Shape{1, 6, 2}, 0)
}

func TestPooling1DValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 5, 1}, Data: []float32{1, 5, 2, 4, 3}}
	layertest.AllClose(t, "MaxPooling1D", layertest.Forward(t, layers.NewMaxPooling1D(), false, x).Data, []float64{5, 4}, 0)
	// same padding, pool 2 stride 2: windows [1 5] [2 4] [3], the last over one step
	y := layertest.Forward(t, layers.NewAveragePooling1D(layers.WithPadding("same")), false, x)
	layertest.AllClose(t, "AveragePooling1D", y.Data, []float64{3, 3, 3}, 1e-7)
}

func TestPooling1DErrors(t *testing.T) {
	for _, l := range []layers.Layer{
		layers.NewMaxPooling1D(layers.WithPoolSize(2, 2)),
		layers.NewAveragePooling1D(layers.WithStrides(0)),
		layers.NewMaxPooling1D(layers.WithKernelSize(2)),
	} {
		if l.Err() == nil {
			t.Errorf("%v: no error", l.GetConfig())
		}
	}
	if _, err := layers.OutputShape(layers.NewMaxPooling1D(), []ops.Shape{{-1, 4, 4, 1}}); err == nil {
		t.Error("rank-4 input: no error")
	}
}
