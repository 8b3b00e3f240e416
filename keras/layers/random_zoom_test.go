package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomZoomConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomZoom([2]float64{-0.3, 0.3}, layers.RandomZoomSettings{}), ops.Shape{2, 5, 6, 2}, ops.Shape{2, 5, 6, 2}, 0)
	layertest.Run(t, layers.NewRandomZoom([2]float64{-0.3, 0.3}, layers.RandomZoomSettings{FillMode: "constant"}), ops.Shape{5, 6, 2}, ops.Shape{5, 6, 2}, 0)
}

func TestRandomZoomErrors(t *testing.T) {
	for _, l := range []*layers.RandomZoom{
		layers.NewRandomZoom([2]float64{-1, 0}, layers.RandomZoomSettings{}),
		layers.NewRandomZoom([2]float64{0, 1.5}, layers.RandomZoomSettings{}),
		layers.NewRandomZoom([2]float64{0, 0.5}, layers.RandomZoomSettings{Interpolation: "bicubic"}),
		layers.NewRandomZoom([2]float64{0, 0.5}, layers.RandomZoomSettings{FillMode: "mirror"}),
	} {
		if l.Err() == nil {
			t.Errorf("%v accepted", l.GetConfig())
		}
	}
}
