package keras

import (
	"encoding/json"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestIssue30ConfigRoundTrips: the configs of the arguments issue 30 added
// (Dropout's noise_shape, Conv's groups, LayerScale, RandomTranslation's
// ranges and interpolation) make, through the registry, layers reporting
// the same configs.
func TestIssue30ConfigRoundTrips(t *testing.T) {
	for _, l := range []layers.Layer{
		layers.NewDropout(0.2, layers.WithNoiseShape(layers.None, 1, 1, 1), layers.WithName("drop")),
		layers.NewConv2D(8, 3, layers.WithGroups(4), layers.WithName("conv")),
		layers.NewConv1D(6, 2, layers.WithGroups(3), layers.WithPadding("causal"), layers.WithName("conv1")),
		layers.NewLayerScale(1e-6, 5, layers.WithName("scale")),
		layers.NewRandomTranslationRange([2]float64{-0.1, 0.3}, [2]float64{0.2, 0.2}, layers.WithInterpolation("nearest"), layers.WithName("shift")),
		layers.NewRandomTranslation(0.2, 0.1, layers.WithName("shift2")),
	} {
		cfg := deepCopy(l.GetConfig()) // as decoded from JSON
		back, err := LayerFromConfig(l.ClassName(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", l.ClassName(), err)
		}
		a, _ := json.Marshal(l.GetConfig())
		b, _ := json.Marshal(back.GetConfig())
		if string(a) != string(b) {
			t.Errorf("%s: config %s, back %s", l.ClassName(), a, b)
		}
	}
	for _, c := range []struct {
		class string
		cfg   map[string]any
	}{
		{"Dropout", map[string]any{"rate": 0.1, "noise_shape": []any{nil, 0.0, 1.0}}},
		{"Dropout", map[string]any{"rate": 0.1, "noise_shape": "x"}},
		{"Conv2D", map[string]any{"filters": 6.0, "kernel_size": 3.0, "groups": 4.0}},
		{"RandomTranslation", map[string]any{"height_factor": []any{0.1, 0.2, 0.3}, "width_factor": 0.1}},
		{"RandomTranslation", map[string]any{"height_factor": 0.1, "width_factor": 0.1, "interpolation": "bicubic"}},
	} {
		if _, err := LayerFromConfig(c.class, c.cfg); err == nil {
			t.Errorf("%s %v: no error", c.class, c.cfg)
		}
	}
}
