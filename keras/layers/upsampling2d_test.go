package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestUpSampling2DConformance(t *testing.T) {
	layertest.Run(t, layers.NewUpSampling2D(2, 2), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 6, 8, 2}, 0)
	layertest.Run(t, layers.NewUpSampling2D(3, 1, layers.WithInterpolation("bilinear")), ops.Shape{1, 3, 2, 3}, ops.Shape{1, 9, 2, 3}, 0)
	layertest.Run(t, layers.NewUpSampling2D(1, 1), ops.Shape{1, 2, 2, 1}, ops.Shape{1, 2, 2, 1}, 0)
}

func TestUpSampling2DNearestValues(t *testing.T) {
	l := layers.NewUpSampling2D(2, 3)
	x := ops.Value{Shape: ops.Shape{1, 2, 2, 1}, Data: []float32{1, 2, 3, 4}}
	y := layertest.Forward(t, l, false, x)
	want := []float64{
		1, 1, 1, 2, 2, 2,
		1, 1, 1, 2, 2, 2,
		3, 3, 3, 4, 4, 4,
		3, 3, 3, 4, 4, 4,
	}
	layertest.AllClose(t, "UpSampling2D", y.Data, want, 0)
}

func TestUpSampling2DErrors(t *testing.T) {
	for _, l := range []layers.Layer{
		layers.NewUpSampling2D(0, 2),
		layers.NewUpSampling2D(2, 2, layers.WithInterpolation("bicubic")),
		layers.NewUpSampling2D(2, 2, layers.WithStrides(2)),
	} {
		if l.Err() == nil {
			t.Errorf("%v: no error", l.GetConfig())
		}
	}
	if _, err := layers.OutputShape(layers.NewUpSampling2D(2, 2), []ops.Shape{{-1, 4, 4}}); err == nil {
		t.Error("rank-3 input: no error")
	}
}
