package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestGlobalPooling1DConformance(t *testing.T) {
	layertest.Run(t, layers.NewGlobalAveragePooling1D(), ops.Shape{2, 5, 3}, ops.Shape{2, 3}, 0)
	layertest.Run(t, layers.NewGlobalAveragePooling1D(layers.WithKeepDims(true)), ops.Shape{2, 5, 3}, ops.Shape{2, 1, 3}, 0)
	layertest.Run(t, layers.NewGlobalMaxPooling1D(), ops.Shape{2, 5, 3}, ops.Shape{2, 3}, 0)
}

func TestGlobalPooling1DValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 3, 2}, Data: []float32{1, -1, 4, 0, 1, 2}}
	layertest.AllClose(t, "GlobalAveragePooling1D", layertest.Forward(t, layers.NewGlobalAveragePooling1D(), false, x).Data, []float64{2, 1.0 / 3}, 1e-6)
	layertest.AllClose(t, "GlobalMaxPooling1D", layertest.Forward(t, layers.NewGlobalMaxPooling1D(), false, x).Data, []float64{4, 2}, 0)
	if _, err := layers.OutputShape(layers.NewGlobalMaxPooling1D(), []ops.Shape{{-1, 4}}); err == nil {
		t.Error("rank-2 input: no error")
	}
}
