package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomPosterizationConformance(t *testing.T) {
	s := layers.RandomPosterizationSettings{Factor: 4, ValueRange: &[2]float64{-3, 3}}
	layertest.Run(t, layers.NewRandomPosterization(s), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 3, 4, 2}, 0)
	layertest.Run(t, layers.NewRandomPosterization(s), ops.Shape{3, 4, 2}, ops.Shape{3, 4, 2}, 0)
}

// TestRandomPosterizationTraining: 255 keeps its top b bits, 256 - 2^(8-b),
// with b an integer drawn per image in [lower, upper) (randint's
// half-open range); factor 1 keeps one bit; (8, 8) only truncates to
// whole levels; inference is the identity; factors outside [1, 8] or not
// integers are refused.
func TestRandomPosterizationTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 255, 100.7)
	l := layers.NewRandomPosterization(layers.RandomPosterizationSettings{Range: &[2]float64{7, 2}}, layers.WithSeed(13))
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	bits := make([]float64, n)
	count := map[float64]int{}
	for i := range n {
		b := 8 - math.Log2(256-float64(y.Data[2*i]))
		if b != math.Trunc(b) {
			t.Fatalf("image %d: 255 became %v", i, y.Data[2*i])
		}
		q := math.Exp2(8 - b)
		if want := math.Floor(100/q) * q; float64(y.Data[2*i+1]) != want {
			t.Fatalf("image %d: %d bits: 100.7 became %v, want %v", i, int(b), y.Data[2*i+1], want)
		}
		bits[i] = b
		count[b]++
	}
	checkDraws(t, "bits", bits, 2, 6, 4, 0.08)
	if len(count) != 5 {
		t.Errorf("bits drawn %v, want each of 2..6", count)
	}
	one := layertest.Forward(t, layers.NewRandomPosterization(layers.RandomPosterizationSettings{Factor: 1}), true, pixels(3, 255, 100.7))
	layertest.AllClose(t, "one bit", one.Data, []float64{128, 0, 128, 0, 128, 0}, 0)
	eight := layertest.Forward(t, layers.NewRandomPosterization(layers.RandomPosterizationSettings{Range: &[2]float64{8, 8}}), true, pixels(1, 255, 100.7))
	layertest.AllClose(t, "eight bits", eight.Data, []float64{255, 100}, 0)
	for _, s := range []layers.RandomPosterizationSettings{{}, {Factor: 9}, {Factor: 2.5}, {Range: &[2]float64{9, 10}},
		{Factor: 4, ValueRange: &[2]float64{1, 1}}} {
		wantErr(t, layers.NewRandomPosterization(s).Err(), "RandomPosterization")
	}
}
