package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestDropoutConformance(t *testing.T) {
	layertest.Run(t, layers.NewDropout(0.5), ops.Shape{4, 6}, ops.Shape{4, 6}, 0)
	layertest.Run(t, layers.NewDropout(0.2, layers.WithSeed(3)), ops.Shape{2, 3, 3, 2}, ops.Shape{2, 3, 3, 2}, 0)
	layertest.Run(t, layers.NewDropout(0), ops.Shape{2, 2}, ops.Shape{2, 2}, 0)
}

func TestDropoutInferenceIsIdentity(t *testing.T) {
	x := seq(20, 0.5, -3)
	y := layertest.Forward(t, layers.NewDropout(0.9), false, ops.Value{Shape: ops.Shape{4, 5}, Data: x})
	for i := range x {
		if y.Data[i] != x[i] {
			t.Fatalf("inference changed x[%d]: %v -> %v", i, x[i], y.Data[i])
		}
	}
}

func TestDropoutTraining(t *testing.T) {
	const n = 20000
	for _, rate := range []float64{0.1, 0.3, 0.5, 0.8} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(1 + i%7)
		}
		y := layertest.Forward(t, layers.NewDropout(rate), true, ops.Value{Shape: ops.Shape{100, n / 100}, Data: x})
		zeros := 0
		scale := 1 / (1 - rate)
		for i, v := range y.Data {
			switch {
			case v == 0:
				zeros++
			case math.Abs(float64(v)-float64(x[i])*scale) > 1e-5*float64(x[i])*scale:
				t.Fatalf("rate %v: survivor %v -> %v, want x/(1-rate) = %v", rate, x[i], v, float64(x[i])*scale)
			}
		}
		// 4 standard deviations of the binomial.
		frac, sd := float64(zeros)/n, math.Sqrt(rate*(1-rate)/n)
		if math.Abs(frac-rate) > 4*sd {
			t.Errorf("rate %v: %.4f of the values dropped", rate, frac)
		}
	}
}

func TestDropoutRateZeroTraining(t *testing.T) {
	x := seq(6, 1, 1)
	y := layertest.Forward(t, layers.NewDropout(0), true, ops.Value{Shape: ops.Shape{2, 3}, Data: x})
	layertest.AllClose(t, "dropout(0)", y.Data, []float64{1, 2, 3, 4, 5, 6}, 0)
}

func TestDropoutConfig(t *testing.T) {
	cfg := layers.NewDropout(0.25, layers.WithSeed(9)).GetConfig()
	if cfg["rate"] != 0.25 || cfg["seed"] != int64(9) {
		t.Errorf("config %v", cfg)
	}
	if cfg := layers.NewDropout(0.25).GetConfig(); cfg["seed"] != nil {
		t.Errorf("unseeded config %v", cfg)
	}
}

// The gradient in training passes through the mask of the same replay.
func TestDropoutGradientUsesMask(t *testing.T) {
	l := layers.NewDropout(0.4)
	x := seq(200, 0.01, 1)
	xv := ops.NewVariable("x", ops.Shape{10, 20}, x, true)
	tr := ops.NewTrace(true, 0, 5)
	y := l.Call([]ops.Tensor{tr.Read(xv)}, true)
	g, err := ops.Gradients(ops.Sum(y, false), []*ops.Variable{xv})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{y, g[0]})
	if err != nil {
		t.Fatal(err)
	}
	prev := ""
	for replay := 0; replay < 3; replay++ {
		outs, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range outs[0].Data {
			if want := v / x[i]; math.Abs(float64(outs[1].Data[i]-want)) > 1e-5 {
				t.Fatalf("replay %d: gradient[%d] = %v, want y/x = %v", replay, i, outs[1].Data[i], want)
			}
		}
		mask := fmt.Sprint(outs[1].Data)
		if mask == prev {
			t.Errorf("replay %d drew the same mask again", replay)
		}
		prev = mask
	}
}
