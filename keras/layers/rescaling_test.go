package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRescalingConformance(t *testing.T) {
	layertest.Run(t, layers.NewRescaling(1.0/255), ops.Shape{2, 4, 4, 3}, ops.Shape{2, 4, 4, 3}, 0)
	layertest.Run(t, layers.NewRescaling(2, layers.WithOffset(-1)), ops.Shape{3, 2}, ops.Shape{3, 2}, 0)
}

func TestRescalingValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 4}, Data: []float32{0, 51, 127.5, 255}}
	y := layertest.Forward(t, layers.NewRescaling(1.0/255), false, x)
	layertest.AllClose(t, "x/255", y.Data, []float64{0, 0.2, 0.5, 1}, 1e-6)
	y = layertest.Forward(t, layers.NewRescaling(1.0/127.5, layers.WithOffset(-1)), false, x)
	layertest.AllClose(t, "x/127.5-1", y.Data, []float64{-1, -0.6, 0, 1}, 1e-6)
}

func TestRescalingConfig(t *testing.T) {
	cfg := layers.NewRescaling(0.5, layers.WithOffset(2)).GetConfig()
	if cfg["scale"] != 0.5 || cfg["offset"] != 2.0 {
		t.Errorf("config %v", cfg)
	}
	if cfg := layers.NewRescaling(0.5).GetConfig(); cfg["offset"] != 0.0 {
		t.Errorf("default offset %v", cfg["offset"])
	}
}
