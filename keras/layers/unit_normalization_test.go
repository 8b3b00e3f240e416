package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestUnitNormalizationConformance(t *testing.T) {
	layertest.Run(t, layers.NewUnitNormalization(), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
	layertest.Run(t, layers.NewUnitNormalization(layers.WithAxes(1, 2)), ops.Shape{2, 3, 2}, ops.Shape{2, 3, 2}, 0)
}

func TestUnitNormalizationValues(t *testing.T) {
	y := layertest.Forward(t, layers.NewUnitNormalization(), false, ops.Value{Shape: ops.Shape{2, 2}, Data: []float32{3, 4, 0, 0}})
	layertest.AllClose(t, "unit norm", y.Data, []float64{0.6, 0.8, 0, 0}, 1e-6)
	y = layertest.Forward(t, layers.NewUnitNormalization(layers.WithAxis(1)), false, ops.Value{Shape: ops.Shape{1, 2, 2}, Data: []float32{3, 0, 4, 2}})
	layertest.AllClose(t, "unit norm over axis 1", y.Data, []float64{0.6, 0, 0.8, 1}, 1e-6)
	wantErr(t, layers.Apply(layers.NewUnitNormalization(layers.WithName("u0"), layers.WithAxis(0)), layers.Input([]int{4})).Err(), "u0", "batch")
}
