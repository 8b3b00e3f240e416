package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TestDropoutNoiseShape: with EfficientNet's noise_shape (None, 1, 1, 1)
// every sample is dropped whole or kept whole (scaled), about rate of them
// dropped; with (None, 1, C) one draw per sample and channel.
func TestDropoutNoiseShape(t *testing.T) {
	const n, rate = 4000, 0.3
	x := make([]float32, n*2*2*3)
	for i := range x {
		x[i] = float32(1 + i%5)
	}
	l := layers.NewDropout(rate, layers.WithNoiseShape(layers.None, 1, 1, 1), layers.WithSeed(5))
	layertest.Run(t, l, ops.Shape{2, 2, 2, 3}, ops.Shape{2, 2, 2, 3}, 0)
	y := layertest.Forward(t, l, true, ops.Value{Shape: ops.Shape{n, 2, 2, 3}, Data: x})
	dropped := 0
	for s := range n {
		zeros := 0
		for j := range 12 {
			i := s*12 + j
			switch v := y.Data[i]; {
			case v == 0:
				zeros++
			case math.Abs(float64(v)-float64(x[i])/(1-rate)) > 1e-5*float64(x[i]):
				t.Fatalf("sample %d: %v -> %v, want x/(1-rate)", s, x[i], v)
			}
		}
		if zeros != 0 && zeros != 12 {
			t.Fatalf("sample %d: %d of its 12 values dropped; the noise shape drops a sample whole", s, zeros)
		}
		if zeros == 12 {
			dropped++
		}
	}
	if frac, sd := float64(dropped)/n, math.Sqrt(rate*(1-rate)/n); math.Abs(frac-rate) > 4*sd {
		t.Errorf("%.4f of the samples dropped, want about %v", frac, rate)
	}

	l2 := layers.NewDropout(0.5, layers.WithNoiseShape(layers.None, 1, 3))
	y = layertest.Forward(t, l2, true, ops.Value{Shape: ops.Shape{50, 4, 3}, Data: x[:600]})
	for s := range 50 {
		for c := range 3 {
			first := y.Data[s*12+c] == 0
			for step := 1; step < 4; step++ {
				if (y.Data[s*12+step*3+c] == 0) != first {
					t.Fatalf("sample %d channel %d: the steps differ; noise shape (None, 1, 3) shares a draw over them", s, c)
				}
			}
		}
	}
	if got := layertest.Forward(t, l, false, ops.Value{Shape: ops.Shape{1, 2, 2, 3}, Data: x[:12]}); got.Data[5] != x[5] {
		t.Error("inference is not the identity")
	}
}

func TestDropoutNoiseShapeConfigAndErrors(t *testing.T) {
	l := layers.NewDropout(0.2, layers.WithNoiseShape(layers.None, 1, 1, 1))
	ns, ok := l.GetConfig()["noise_shape"].([]any)
	if !ok || len(ns) != 4 || ns[0] != nil || ns[1] != 1 {
		t.Errorf("noise_shape config %v, want [None, 1, 1, 1]", l.GetConfig()["noise_shape"])
	}
	if got := layers.NewDropout(0.2).GetConfig()["noise_shape"]; got != nil {
		t.Errorf("default noise_shape %v, want None", got)
	}
	if err := layers.NewDropout(0.2, layers.WithNoiseShape(0, 1)).Err(); err == nil || !strings.Contains(err.Error(), "noise_shape") {
		t.Errorf("noise_shape (0, 1): %v", err)
	}
	if _, err := layers.OutputShape(layers.NewDropout(0.2, layers.WithNoiseShape(layers.None, 1)), []ops.Shape{{-1, 2, 3}}); err == nil {
		t.Error("a noise shape of another rank: no error")
	}
	bad := layers.NewDropout(0.2, layers.WithNoiseShape(layers.None, 2, 1))
	x := layers.Input([]int{3, 1})
	if y := layers.Apply(bad, x); y.Err() != nil {
		t.Fatal(y.Err())
	}
	tr := ops.NewTrace(true, 0, 1)
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(*ops.Error).Msg, "does not broadcast") {
				t.Errorf("noise shape (None, 2, 1) on (2, 3, 1): %v", r)
			}
		}()
		bad.Call([]ops.Tensor{tr.Input("x", ops.Shape{2, 3, 1})}, true)
	}()
}
