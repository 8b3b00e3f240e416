package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestGroupNormalizationConformance(t *testing.T) {
	layertest.Run(t, layers.NewGroupNormalization(2), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 8)
	layertest.Run(t, layers.NewGroupNormalization(-1, layers.WithCenter(false)), ops.Shape{2, 2, 2, 3}, ops.Shape{2, 2, 2, 3}, 3)
	layertest.Run(t, layers.NewGroupNormalization(3, layers.WithAxis(1)), ops.Shape{2, 6, 2}, ops.Shape{2, 6, 2}, 12)
}

// TestGroupNormalizationValues: with two groups of two channels, each
// sample's group is normalized over its steps and channels.
func TestGroupNormalizationValues(t *testing.T) {
	x := []float32{ // (1, 2, 4): steps x channels, groups {0,1} and {2,3}
		1, 3, 10, 10,
		5, 7, 10, 30,
	}
	y := layertest.Forward(t, layers.NewGroupNormalization(2, layers.WithEpsilon(0)), false, ops.Value{Shape: ops.Shape{1, 2, 4}, Data: x})
	// group 0: 1 3 5 7, mean 4, variance 5; group 1: 10 10 10 30, mean 15, variance 75
	r5, r75 := math.Sqrt(5), math.Sqrt(75)
	layertest.AllClose(t, "group norm", y.Data, []float64{-3 / r5, -1 / r5, -5 / r75, -5 / r75, 1 / r5, 3 / r5, -5 / r75, 15 / r75}, 1e-5)
}

func TestGroupNormalizationErrors(t *testing.T) {
	if err := layers.NewGroupNormalization(0).Err(); err == nil {
		t.Error("0 groups accepted")
	}
	wantErr(t, layers.Apply(layers.NewGroupNormalization(3, layers.WithName("g3")), layers.Input([]int{4})).Err(), "g3", "must divide", "4")
	wantErr(t, layers.Apply(layers.NewGroupNormalization(8, layers.WithName("g8")), layers.Input([]int{4})).Err(), "g8", "more than")
	wantErr(t, layers.Apply(layers.NewGroupNormalization(1, layers.WithName("gax"), layers.WithAxis(3)), layers.Input([]int{4})).Err(), "gax", "axis 3")
}
