package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomSaturationConformance(t *testing.T) {
	s := layers.RandomSaturationSettings{Range: &[2]float64{0.2, 0.6}}
	layertest.Run(t, layers.NewRandomSaturation(s), ops.Shape{2, 3, 4, 3}, ops.Shape{2, 3, 4, 3}, 0)
	layertest.Run(t, layers.NewRandomSaturation(s), ops.Shape{3, 4, 3}, ops.Shape{3, 4, 3}, 0)
}

// TestRandomSaturationTraining: each image's saturation is multiplied by
// u / (1 - u) with u uniform in the factor range, drawn per image; hue
// and value stay; one number f reads as (-f, f); inference is the
// identity.
func TestRandomSaturationTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 200, 120, 100)
	l := layers.NewRandomSaturation(layers.RandomSaturationSettings{Range: &[2]float64{0.2, 0.7}}, layers.WithSeed(6))
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	in, out := hsvOf(x.Data), hsvOf(y.Data)
	u := make([]float64, n)
	for i := range n {
		r := float64(out[3*i+1] / in[3*i+1])
		u[i] = r / (1 + r)
		if math.Abs(float64(out[3*i]-in[3*i])) > 1e-5 || math.Abs(float64(out[3*i+2]-in[3*i+2])) > 1e-3 {
			t.Fatalf("image %d: hsv %v from %v: hue or value moved", i, out[3*i:3*i+3], in[3*i:3*i+3])
		}
	}
	checkDraws(t, "u", u, 0.2, 0.7, 0.45, 0.01)
	one := layers.NewRandomSaturation(layers.RandomSaturationSettings{Factor: 0.4})
	if cfg := one.GetConfig()["factor"].([]any); cfg[0] != -0.4 || cfg[1] != 0.4 {
		t.Errorf("factor 0.4 reads as %v, want Keras' (-0.4, 0.4)", cfg)
	}
	for _, s := range []layers.RandomSaturationSettings{{Factor: 1.5}, {Range: &[2]float64{1.5, 2}}, {Range: &[2]float64{-3, -2}},
		{Factor: 0.2, ValueRange: &[2]float64{math.NaN(), 1}}} {
		wantErr(t, layers.NewRandomSaturation(s).Err(), "RandomSaturation")
	}
	buildFails(t, layers.NewRandomSaturation(layers.RandomSaturationSettings{Factor: 0.1}), ops.Shape{-1, 4, 4, 2})
}
