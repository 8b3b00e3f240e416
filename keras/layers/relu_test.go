package layers_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// reluRef is Keras' documented ReLU: max_value for x >= max_value, x for
// threshold <= x < max_value, negative_slope * (x - threshold) otherwise.
// maxValue < 0 means no cap.
func reluRef(x, maxValue, slope, threshold float64) float64 {
	switch {
	case maxValue >= 0 && x >= maxValue:
		return maxValue
	case x >= threshold:
		return x
	}
	return slope * (x - threshold)
}

func TestReLUConformance(t *testing.T) {
	layertest.Run(t, layers.NewReLU(), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
	layertest.Run(t, layers.NewReLU(layers.WithMaxValue(0.5), layers.WithNegativeSlope(0.1), layers.WithThreshold(0.2)), ops.Shape{2, 3, 3, 2}, ops.Shape{2, 3, 3, 2}, 0)
}

func TestReLUValues(t *testing.T) {
	x := []float32{-3, -1, -0.5, 0, 0.25, 0.5, 1, 1.5, 2, 5.5, 6, 7}
	for _, c := range []struct {
		maxValue, slope, threshold float64
		opts                       []layers.Option
	}{
		{-1, 0, 0, nil},
		{6, 0, 0, []layers.Option{layers.WithMaxValue(6)}},
		{1, 0, 0, []layers.Option{layers.WithMaxValue(1)}},
		{0, 0, 0, []layers.Option{layers.WithMaxValue(0)}},
		{-1, 0.1, 0, []layers.Option{layers.WithNegativeSlope(0.1)}},
		{-1, 0, 1, []layers.Option{layers.WithThreshold(1)}},
		{-1, 0.2, 1, []layers.Option{layers.WithThreshold(1), layers.WithNegativeSlope(0.2)}},
		{2, 0.3, 0.5, []layers.Option{layers.WithMaxValue(2), layers.WithNegativeSlope(0.3), layers.WithThreshold(0.5)}},
		{6, 0.5, 0, []layers.Option{layers.WithMaxValue(6), layers.WithNegativeSlope(0.5)}},
		{1.5, 0, 1.5, []layers.Option{layers.WithMaxValue(1.5), layers.WithThreshold(1.5)}},
	} {
		what := fmt.Sprintf("relu(max_value=%v, negative_slope=%v, threshold=%v)", c.maxValue, c.slope, c.threshold)
		l := layers.NewReLU(c.opts...)
		if err := l.Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		y := layertest.Forward(t, l, false, ops.Value{Shape: ops.Shape{2, len(x) / 2}, Data: x})
		want := make([]float64, len(x))
		for i, v := range x {
			want[i] = reluRef(float64(v), c.maxValue, c.slope, c.threshold)
		}
		layertest.AllClose(t, what, y.Data, want, 1e-6)
	}
}

func TestReLUGradient(t *testing.T) {
	// Slope 1 between threshold and max_value, negative_slope below, 0 above.
	l := layers.NewReLU(layers.WithMaxValue(2), layers.WithNegativeSlope(0.25), layers.WithThreshold(0.5))
	x := []float32{-1, 0.2, 0.7, 1.9, 2.5, 4}
	want := []float64{0.25, 0.25, 1, 1, 0, 0}
	xv := ops.NewVariable("x", ops.Shape{1, len(x)}, x, true)
	tr := ops.NewTrace(false, 0, 0)
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, len(x)}}); err != nil {
		t.Fatal(err)
	}
	g, err := ops.Gradients(ops.Sum(l.Call([]ops.Tensor{tr.Read(xv)}, false), false), []*ops.Variable{xv})
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, tr, g[0])
	layertest.AllClose(t, "relu gradient", got, want, 1e-6)
}

func TestReLUConfig(t *testing.T) {
	cfg := layers.NewReLU().GetConfig()
	if cfg["max_value"] != nil || cfg["negative_slope"] != 0.0 || cfg["threshold"] != 0.0 {
		t.Errorf("default config %v", cfg)
	}
	cfg = layers.NewReLU(layers.WithMaxValue(6), layers.WithNegativeSlope(0.1), layers.WithThreshold(0.5)).GetConfig()
	if cfg["max_value"] != 6.0 || cfg["negative_slope"] != 0.1 || cfg["threshold"] != 0.5 {
		t.Errorf("config %v", cfg)
	}
}
