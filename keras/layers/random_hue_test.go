package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomHueConformance(t *testing.T) {
	s := layers.RandomHueSettings{Factor: 0.5, ValueRange: &[2]float64{-3, 3}}
	layertest.Run(t, layers.NewRandomHue(s), ops.Shape{2, 3, 4, 3}, ops.Shape{2, 3, 4, 3}, 0)
	layertest.Run(t, layers.NewRandomHue(s), ops.Shape{3, 4, 3}, ops.Shape{3, 4, 3}, 0)
}

// TestRandomHueTraining: each image's hue turns by a/2 with a uniform in
// the factor range, either way with probability 1/2, drawn per image;
// saturation and value stay; inference is the identity.
func TestRandomHueTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 0.9, 0.3, 0.2)
	l := layers.NewRandomHue(layers.RandomHueSettings{Range: &[2]float64{0.6, 0.2}, ValueRange: &[2]float64{0, 1}}, layers.WithSeed(5))
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	in, out := hsvOf(x.Data), hsvOf(y.Data)
	turn, size := make([]float64, n), make([]float64, n)
	for i := range n {
		d := float64(out[3*i] - in[3*i])
		d -= math.Round(d) // the turn in [-1/2, 1/2]
		turn[i], size[i] = d, math.Abs(d)
		for k := 1; k < 3; k++ {
			if math.Abs(float64(out[3*i+k]-in[3*i+k])) > 1e-5 {
				t.Fatalf("image %d: hsv %v from %v: saturation or value moved", i, out[3*i:3*i+3], in[3*i:3*i+3])
			}
		}
	}
	checkDraws(t, "turn", turn, -0.3, 0.3, 0, 0.02)
	checkDraws(t, "turn size", size, 0.1, 0.3, 0.2, 0.005)
	for _, s := range []layers.RandomHueSettings{{Factor: 1.5}, {Factor: -0.1}, {Range: &[2]float64{1.5, 2}},
		{Factor: 0.2, ValueRange: &[2]float64{1, 1}}, {Factor: 0.2, ValueRange: &[2]float64{0, math.Inf(1)}}} {
		wantErr(t, layers.NewRandomHue(s).Err(), "RandomHue")
	}
	buildFails(t, layers.NewRandomHue(layers.RandomHueSettings{Factor: 0.1}), ops.Shape{-1, 4, 4, 1})
}
