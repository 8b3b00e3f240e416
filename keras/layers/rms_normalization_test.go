package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRMSNormalizationConformance(t *testing.T) {
	layertest.Run(t, layers.NewRMSNormalization(), ops.Shape{2, 3, 5}, ops.Shape{2, 3, 5}, 5)
	layertest.Run(t, layers.NewRMSNormalization(layers.WithAxes(1, 2)), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 12)
}

func TestRMSNormalizationValues(t *testing.T) {
	y := layertest.Forward(t, layers.NewRMSNormalization(layers.WithEpsilon(0)), false, ops.Value{Shape: ops.Shape{1, 2}, Data: []float32{3, 4}})
	rms := math.Sqrt(12.5)
	layertest.AllClose(t, "rms norm", y.Data, []float64{3 / rms, 4 / rms}, 1e-6)
	wantErr(t, layers.Apply(layers.NewRMSNormalization(layers.WithName("rms1"), layers.WithAxis(1)), layers.Input([]int{3, 4})).Err(),
		"rms1", "last axes")
}
