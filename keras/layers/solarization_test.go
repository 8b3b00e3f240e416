package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestSolarizationConformance(t *testing.T) {
	s := layers.SolarizationSettings{AdditionFactor: 0.2, ThresholdFactor: 0.5}
	layertest.Run(t, layers.NewSolarization(s), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 3, 4, 2}, 0)
	layertest.Run(t, layers.NewSolarization(s), ops.Shape{3, 4, 2}, ops.Shape{3, 4, 2}, 0)
}

// TestSolarizationTraining: with threshold 0 (the default) every value
// becomes 255 - clip(x + a), a uniform in [0, 255 f] per image; with no
// addition a value is inverted when not below the threshold, uniform in
// [0, 255 f]; a pair's lower bound is not scaled by 255, as Keras';
// inference is the identity.
func TestSolarizationTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 10)
	add := layers.NewSolarization(layers.SolarizationSettings{AdditionFactor: 0.4}, layers.WithSeed(14))
	identityInInference(t, add, x)
	y := layertest.Forward(t, add, true, x)
	a := make([]float64, n)
	for i, v := range y.Data {
		a[i] = 245 - float64(v)
	}
	checkDraws(t, "addition", a, 0, 102, 51, 2.5)
	pair := layers.NewSolarization(layers.SolarizationSettings{AdditionRange: &[2]float64{0.5, 0.2}}, layers.WithSeed(15))
	y = layertest.Forward(t, pair, true, x)
	for i, v := range y.Data {
		a[i] = 245 - float64(v)
	}
	checkDraws(t, "addition (pair)", a, 0.2, 127.5, 63.85, 3)

	thr := layers.NewSolarization(layers.SolarizationSettings{ThresholdFactor: 0.8}, layers.WithSeed(16))
	y = layertest.Forward(t, thr, true, pixels(n, 100))
	inv := make([]float64, n)
	for i, v := range y.Data {
		switch v {
		case 155:
			inv[i] = 1
		case 100:
		default:
			t.Fatalf("image %d: %v, want 100 or 155", i, v)
		}
	}
	checkDraws(t, "inverted", inv, 0, 1, 100/204.0, 0.03)
	vr := layers.NewSolarization(layers.SolarizationSettings{ValueRange: &[2]float64{0, 1}})
	y = layertest.Forward(t, vr, true, pixels(1, 0.2))
	layertest.AllClose(t, "unit range", y.Data, []float64{0.8}, 1e-6)
	for _, s := range []layers.SolarizationSettings{{AdditionFactor: 1.5}, {ThresholdFactor: -0.1},
		{ThresholdRange: &[2]float64{0.5, 2}}, {AdditionFactor: math.NaN()}, {ValueRange: &[2]float64{2, 2}}} {
		wantErr(t, layers.NewSolarization(s).Err(), "Solarization")
	}
}
