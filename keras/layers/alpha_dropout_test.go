package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestAlphaDropoutConformance(t *testing.T) {
	layertest.Run(t, layers.NewAlphaDropout(0.2), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
}

// TestAlphaDropoutTraining: on SELU-normalized input (mean 0, variance 1)
// the output keeps mean 0 and variance 1; kept values are a·x + b and
// dropped ones a·alpha' + b, with Keras' a and b.
func TestAlphaDropoutTraining(t *testing.T) {
	const n, rate = 40000, 0.3
	x := make([]float32, n)
	for i := range x { // a standard normal sample, by inverse transform of a grid
		p := (float64(i) + 0.5) / n
		x[(i*7919)%n] = float32(math.Sqrt2 * math.Erfinv(2*p-1))
	}
	in := ops.Value{Shape: ops.Shape{200, n / 200}, Data: x}
	if y := layertest.Forward(t, layers.NewAlphaDropout(rate), false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewAlphaDropout(rate, layers.WithSeed(7)), true, in)
	alphaP := -1.6732632423543772 * 1.0507009873554805
	a := math.Pow((1-rate)*(1+rate*alphaP*alphaP), -0.5)
	b := -a * alphaP * rate
	dropped := 0
	out := make([]float64, n)
	for i, v := range y.Data {
		out[i] = float64(v)
		kept := a*float64(x[i]) + b
		switch {
		case math.Abs(float64(v)-(a*alphaP+b)) < 1e-5:
			dropped++
		case math.Abs(float64(v)-kept) > 1e-5*math.Max(1, math.Abs(kept)):
			t.Fatalf("value %d: %v, neither a·x+b = %v nor the dropped value %v", i, v, kept, a*alphaP+b)
		}
	}
	if frac := float64(dropped) / n; math.Abs(frac-rate) > 4*math.Sqrt(rate*(1-rate)/n) {
		t.Errorf("%.4f of the values dropped, want %v", frac, rate)
	}
	m, s := meanStd(out)
	if math.Abs(m) > 0.03 || math.Abs(s-1) > 0.03 {
		t.Errorf("output mean %.4f, std %.4f; want 0 and 1", m, s)
	}
}

// TestAlphaDropoutNoiseShape: with noise_shape (None, 1, channels) every
// step of a sample and channel is dropped or kept together.
func TestAlphaDropoutNoiseShape(t *testing.T) {
	l := layers.NewAlphaDropout(0.5, layers.WithNoiseShape(layers.None, 1, 3), layers.WithSeed(4))
	x := make([]float32, 40*5*3)
	for i := range x {
		x[i] = 1 + float32(i%7)*0.1
	}
	y := layertest.Forward(t, l, true, ops.Value{Shape: ops.Shape{40, 5, 3}, Data: x})
	alphaP := -1.6732632423543772 * 1.0507009873554805
	a := math.Pow(0.5*(1+0.5*alphaP*alphaP), -0.5)
	dropped := float32(a*alphaP - a*alphaP*0.5)
	for s := range 40 {
		for c := range 3 {
			first := math.Abs(float64(y.Data[s*15+c]-dropped)) < 1e-5
			for p := range 5 {
				if got := math.Abs(float64(y.Data[(s*5+p)*3+c]-dropped)) < 1e-5; got != first {
					t.Fatalf("sample %d channel %d: step %d dropped %v, step 0 %v", s, c, p, got, first)
				}
			}
		}
	}
	wantErr(t, layers.Apply(layers.NewAlphaDropout(0.1, layers.WithName("ad"), layers.WithNoiseShape(layers.None, 2)), layers.Input([]int{3})).Err(),
		"ad", "broadcast")
}
