package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestAutoContrastConformance(t *testing.T) {
	layertest.Run(t, layers.NewAutoContrast(nil), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 3, 4, 2}, 0)
	layertest.Run(t, layers.NewAutoContrast(&[2]float64{-3, 3}), ops.Shape{3, 4, 2}, ops.Shape{3, 4, 2}, 0)
}

// TestAutoContrast: each channel of each image is stretched to the whole
// value range, in inference as in training; a constant channel passes
// through; one image (rank 3) is a batch of one.
func TestAutoContrast(t *testing.T) {
	// Two images of three pixels, two channels; image 1's channel 1 is
	// constant.
	x := ops.Value{Shape: ops.Shape{2, 1, 3, 2}, Data: []float32{10, 0.5, 20, 0.25, 30, 0, 0.1, 7, 0.3, 7, 0.2, 7}}
	want := []float64{0, 1, 0.5, 0.5, 1, 0, 0, 7, 1, 7, 0.5, 7}
	l := layers.NewAutoContrast(&[2]float64{1, 0})
	for _, training := range []bool{false, true} {
		y := layertest.Forward(t, l, training, x)
		layertest.AllClose(t, "stretched", y.Data, want, 1e-6)
	}
	one := ops.Value{Shape: ops.Shape{1, 3, 2}, Data: x.Data[6:]}
	y := layertest.Forward(t, layers.NewAutoContrast(&[2]float64{0, 1}), false, one)
	layertest.AllClose(t, "one image", y.Data, want[6:], 1e-6)
	wantErr(t, layers.NewAutoContrast(&[2]float64{3, 3}).Err(), "AutoContrast", "value_range")
}
