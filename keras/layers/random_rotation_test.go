package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomRotationConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomRotation([2]float64{-0.3, 0.3}, layers.RandomRotationSettings{}), ops.Shape{2, 5, 6, 2}, ops.Shape{2, 5, 6, 2}, 0)
	layertest.Run(t, layers.NewRandomRotation([2]float64{-0.3, 0.3}, layers.RandomRotationSettings{FillMode: "constant"}), ops.Shape{5, 6, 2}, ops.Shape{5, 6, 2}, 0)
}

func TestRandomRotationErrors(t *testing.T) {
	for _, l := range []*layers.RandomRotation{
		layers.NewRandomRotation([2]float64{-1.5, 0}, layers.RandomRotationSettings{}),
		layers.NewRandomRotation([2]float64{0, 0.5}, layers.RandomRotationSettings{Interpolation: "bicubic"}),
		layers.NewRandomRotation([2]float64{0, 0.5}, layers.RandomRotationSettings{FillMode: "mirror"}),
	} {
		if l.Err() == nil {
			t.Errorf("%v accepted", l.GetConfig())
		}
	}
}
