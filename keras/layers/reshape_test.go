package layers_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestReshapeConformance(t *testing.T) {
	layertest.Run(t, layers.NewReshape([]int{3, 4}), ops.Shape{2, 12}, ops.Shape{2, 3, 4}, 0)
	layertest.Run(t, layers.NewReshape([]int{-1, 2}), ops.Shape{2, 3, 4}, ops.Shape{2, 6, 2}, 0)
	layertest.Run(t, layers.NewReshape([]int{2, -1, 3}), ops.Shape{1, 4, 3}, ops.Shape{1, 2, 2, 3}, 0)
	layertest.Run(t, layers.NewReshape([]int{-1}), ops.Shape{3, 2, 2}, ops.Shape{3, 4}, 0)
}

func TestReshapeValues(t *testing.T) {
	x := seq(12, 1, 0)
	y := layertest.Forward(t, layers.NewReshape([]int{-1, 3}), false, ops.Value{Shape: ops.Shape{2, 6}, Data: x})
	if !y.Shape.Equal(ops.Shape{2, 2, 3}) {
		t.Fatalf("shape %v", y.Shape)
	}
	want := make([]float64, 12)
	for i := range want {
		want[i] = float64(i)
	}
	layertest.AllClose(t, "reshape", y.Data, want, 0)
}

func TestReshapeErrors(t *testing.T) {
	for _, c := range []struct {
		target []int
		shown  string
	}{{[]int{5}, "(None, 5)"}, {[]int{-1, -1}, "(None, -1, -1)"}, {[]int{5, -1}, "(None, 5, -1)"}, {[]int{0, -1}, "(None, 0, -1)"}} {
		l := layers.NewReshape(c.target, layers.WithName("r"))
		y := layers.Apply(l, layers.Input([]int{3, 4}))
		wantErr(t, y.Err(), "Reshape", `"r"`, "(None, 3, 4)", c.shown)
	}
}

func TestReshapeConfig(t *testing.T) {
	if got := fmt.Sprint(layers.NewReshape([]int{-1, 3}).GetConfig()["target_shape"]); got != "[-1 3]" {
		t.Errorf("target_shape %s", got)
	}
}
