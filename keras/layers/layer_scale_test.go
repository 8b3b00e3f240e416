package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestLayerScale(t *testing.T) {
	l := layers.NewLayerScale(1e-6, 3)
	layertest.Run(t, l, ops.Shape{2, 4, 4, 3}, ops.Shape{2, 4, 4, 3}, 3)
	if got := l.Gamma.Data(0); got[0] != 1e-6 || got[2] != 1e-6 {
		t.Errorf("gamma starts at %v, want init_values", got)
	}
	if err := l.Gamma.Assign([]float32{1, 2, -1}); err != nil {
		t.Fatal(err)
	}
	y := layertest.Forward(t, l, false, ops.Value{Shape: ops.Shape{1, 2, 3}, Data: []float32{1, 1, 1, 2, 3, 4}})
	layertest.AllClose(t, "x * gamma", y.Data, []float64{1, 2, -1, 2, 6, -4}, 0)
	cfg := l.GetConfig()
	if cfg["init_values"] != 1e-6 || cfg["projection_dim"] != 3 || l.Module() != "keras.src.applications.convnext" {
		t.Errorf("config %v, module %q", cfg, l.Module())
	}
	wantErr(t, layers.NewLayerScale(0.1, 0).Err(), "LayerScale", "projection_dim")
	if _, err := layers.OutputShape(layers.NewLayerScale(0.1, 4), []ops.Shape{{-1, 2, 3}}); err == nil {
		t.Error("4 channels of scale on 3: no error")
	}
}
