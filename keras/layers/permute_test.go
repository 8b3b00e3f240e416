package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestPermuteConformance(t *testing.T) {
	layertest.Run(t, layers.NewPermute([]int{2, 1}), ops.Shape{2, 3, 4}, ops.Shape{2, 4, 3}, 0)
	layertest.Run(t, layers.NewPermute([]int{3, 1, 2}), ops.Shape{2, 3, 4, 5}, ops.Shape{2, 5, 3, 4}, 0)
	layertest.Run(t, layers.NewPermute([]int{1, 2}), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 0)
}

func TestPermuteValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}}
	y := layertest.Forward(t, layers.NewPermute([]int{2, 1}), false, x)
	layertest.AllClose(t, "Permute", y.Data, []float64{1, 4, 2, 5, 3, 6}, 0)
}

func TestPermuteErrors(t *testing.T) {
	for _, dims := range [][]int{nil, {1, 1}, {0, 1}, {1, 3}} {
		if l := layers.NewPermute(dims); l.Err() == nil {
			t.Errorf("dims %v: no error", dims)
		}
	}
	if _, err := layers.OutputShape(layers.NewPermute([]int{2, 1}), []ops.Shape{{-1, 2, 3, 4}}); err == nil {
		t.Error("rank mismatch: no error")
	}
}
