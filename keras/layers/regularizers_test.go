package layers_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// penalties returns the layer's regularization losses, computed.
func penalties(t *testing.T, l layers.Layer) []float32 {
	t.Helper()
	var out []float32
	for _, p := range l.RegularizationLosses(ops.NewTrace(true, 0, 0)) {
		if p.IsNone() {
			t.Fatalf("%s: a none regularization loss", l.Name())
		}
		if p.Rank() != 0 {
			t.Fatalf("%s: penalty of shape %v, want a scalar", l.Name(), p.Shape())
		}
		out = append(out, run(t, p.Trace(), p)...)
	}
	return out
}

func TestRegularizerPenalties(t *testing.T) {
	d := layers.NewDense(2, layers.WithKernelRegularizer(layers.L2(0.01)), layers.WithBiasRegularizer(layers.L1(0.1)))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Kernel.Assign([]float32{1, -2, 3, -4}); err != nil {
		t.Fatal(err)
	}
	if err := d.Bias.Assign([]float32{0.5, -1.5}); err != nil {
		t.Fatal(err)
	}
	// kernel: 0.01 * (1+4+9+16) = 0.3; bias: 0.1 * (0.5+1.5) = 0.2
	layertest.AllClose(t, "dense penalties", penalties(t, d), []float64{0.3, 0.2}, 1e-6)

	c := layers.NewConv2D(1, 2, layers.WithKernelRegularizer(layers.L1L2(0.5, 0.25)), layers.WithUseBias(false))
	if _, err := layers.OutputShape(c, []ops.Shape{{-1, 3, 3, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Kernel.Assign([]float32{1, -1, 2, 0}); err != nil {
		t.Fatal(err)
	}
	// 0.5 * 4 + 0.25 * 6
	layertest.AllClose(t, "conv penalty", penalties(t, c), []float64{3.5}, 1e-6)

	if p := penalties(t, layers.NewDense(3)); len(p) != 0 {
		t.Errorf("unregularized layer: %v", p)
	}
}

func TestRegularizerZero(t *testing.T) {
	d := layers.NewDense(2, layers.WithKernelRegularizer(layers.L1L2(0, 0)))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	layertest.AllClose(t, "L1L2(0, 0)", penalties(t, d), []float64{0}, 0)
}

func TestRegularizerGradient(t *testing.T) {
	d := layers.NewDense(1, layers.WithKernelRegularizer(layers.L1L2(0.1, 0.5)), layers.WithUseBias(false))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Kernel.Assign([]float32{2, -1, 0.5}); err != nil {
		t.Fatal(err)
	}
	tr := ops.NewTrace(true, 0, 0)
	p := d.RegularizationLosses(tr)
	g, err := ops.Gradients(p[0], []*ops.Variable{d.Kernel})
	if err != nil {
		t.Fatal(err)
	}
	// 0.1 * sign(w) + 2 * 0.5 * w
	layertest.AllClose(t, "penalty gradient", run(t, tr, g[0]), []float64{2.1, -1.1, 0.6}, 1e-6)
}

func TestRegularizerNames(t *testing.T) {
	for r, want := range map[layers.Regularizer]string{
		layers.L1(0.01): "L1", layers.L2(0.01): "L2", layers.L1L2(0.01, 0.02): "L1L2", layers.L1L2(0, 0): "L1L2",
	} {
		if r.Name() != want {
			t.Errorf("%v: name %q, want %q", r, r.Name(), want)
		}
	}
}

func TestRegularizerConfig(t *testing.T) {
	cfg := layers.NewDense(2, layers.WithKernelRegularizer(layers.L2(0.01)), layers.WithBiasRegularizer(layers.L1L2(0.1, 0.2))).GetConfig()
	if got := fmt.Sprint(cfg["kernel_regularizer"], cfg["bias_regularizer"]); got != "map[class_name:L2 config:map[l2:0.01]] map[class_name:L1L2 config:map[l1:0.1 l2:0.2]]" {
		t.Errorf("regularizer configs %s", got)
	}
	cfg = layers.NewConv2D(2, 3, layers.WithKernelRegularizer(layers.L1(0.5))).GetConfig()
	if got := fmt.Sprint(cfg["kernel_regularizer"], cfg["bias_regularizer"]); got != "map[class_name:L1 config:map[l1:0.5]] <nil>" {
		t.Errorf("regularizer configs %s", got)
	}
}
