package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestEqualizationConformance(t *testing.T) {
	layertest.Run(t, layers.NewEqualization(layers.EqualizationSettings{}), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 3, 4, 2}, 0)
	layertest.Run(t, layers.NewEqualization(layers.EqualizationSettings{Bins: 16}), ops.Shape{3, 4, 2}, ops.Shape{3, 4, 2}, 0)
}

// TestEqualization: the histogram of a channel is the whole batch's, as
// Keras counts it: a dark image and a bright one share the levels 0, 85,
// 170, 255 (each alone would be stretched to 0 and 255); a channel in one
// bin passes through; the value range maps to 0..255 and back; inference
// is the identity.
func TestEqualization(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{2, 1, 2, 2}, Data: []float32{0, 9, 10, 9, 200, 9, 255, 9}}
	l := layers.NewEqualization(layers.EqualizationSettings{})
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	layertest.AllClose(t, "equalized", y.Data, []float64{0, 9, 85, 9, 170, 9, 255, 9}, 0)
	unit := ops.Value{Shape: x.Shape, Data: make([]float32, len(x.Data))}
	for i, v := range x.Data {
		unit.Data[i] = v/255*2 - 1
	}
	y = layertest.Forward(t, layers.NewEqualization(layers.EqualizationSettings{ValueRange: &[2]float64{1, -1}}), true, unit)
	layertest.AllClose(t, "value range (-1, 1)", y.Data, []float64{-1, 9.0/255*2 - 1, 85.0/255*2 - 1, 9.0/255*2 - 1, 170.0/255*2 - 1, 9.0/255*2 - 1, 1, 9.0/255*2 - 1}, 1e-6)
	wantErr(t, layers.NewEqualization(layers.EqualizationSettings{Bins: -1}).Err(), "Equalization", "bins")
	wantErr(t, layers.NewEqualization(layers.EqualizationSettings{ValueRange: &[2]float64{1, 1}}).Err(), "Equalization", "value_range")
}
