package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomColorJitterConformance(t *testing.T) {
	all := layers.RandomColorJitterSettings{ValueRange: &[2]float64{-3, 3}, BrightnessFactor: []float64{0.1},
		ContrastFactor: []float64{0.2}, SaturationFactor: []float64{0.3, 0.6}, HueFactor: []float64{0.2}}
	layertest.Run(t, layers.NewRandomColorJitter(all), ops.Shape{2, 3, 4, 3}, ops.Shape{2, 3, 4, 3}, 0)
	layertest.Run(t, layers.NewRandomColorJitter(all), ops.Shape{3, 4, 3}, ops.Shape{3, 4, 3}, 0)
	bc := layers.RandomColorJitterSettings{BrightnessFactor: []float64{0.1}, ContrastFactor: []float64{0.2}}
	layertest.Run(t, layers.NewRandomColorJitter(bc), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 3, 4, 2}, 0)
}

// TestRandomColorJitterTraining: the brightness alone adds a delta per
// image, uniform in the factor range times the value range's width; the
// contrast alone scales the deviations from the mean by a factor per
// image in [1 - lower, 1 + upper]; with all four the output stays finite
// and differs per image; inference is the identity; factors outside
// their layers' bounds are refused.
func TestRandomColorJitterTraining(t *testing.T) {
	const n = 3000
	vr := &[2]float64{0, 2}
	x := pixels(n, 0.4, 0.6, 1.0)
	b := layers.NewRandomColorJitter(layers.RandomColorJitterSettings{ValueRange: vr, BrightnessFactor: []float64{0.3, 0.1}}, layers.WithSeed(8))
	identityInInference(t, b, x)
	y := layertest.Forward(t, b, true, x)
	d := make([]float64, n)
	for i := range n {
		d[i] = float64(y.Data[3*i] - x.Data[3*i])
	}
	checkDraws(t, "brightness delta", d, 0.2, 0.6, 0.4, 0.01)

	// Two pixels per image, 0.3 and 0.5 (mean 0.4).
	two := ops.Value{Shape: ops.Shape{n, 1, 2, 1}, Data: make([]float32, 2*n)}
	for i := range n {
		two.Data[2*i], two.Data[2*i+1] = 0.3, 0.5
	}
	c := layers.NewRandomColorJitter(layers.RandomColorJitterSettings{ValueRange: vr, ContrastFactor: []float64{0.2, 0.5}}, layers.WithSeed(9))
	y = layertest.Forward(t, c, true, two)
	for i := range n {
		d[i] = (float64(y.Data[2*i]) - 0.4) / -0.1
	}
	checkDraws(t, "contrast factor", d, 0.8, 1.5, 1.15, 0.01)

	all := layers.NewRandomColorJitter(layers.RandomColorJitterSettings{BrightnessFactor: []float64{0.2},
		ContrastFactor: []float64{0.3}, SaturationFactor: []float64{0.5}, HueFactor: []float64{0.5}}, layers.WithSeed(10))
	img := pixels(100, 200, 120, 30)
	y = layertest.Forward(t, all, true, img)
	distinct := map[float32]bool{}
	for i, v := range y.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("output[%d] = %v", i, v)
		}
		distinct[v] = true
	}
	if len(distinct) < 150 {
		t.Errorf("%d distinct values in 100 jittered images of one pixel", len(distinct))
	}
	for _, s := range []layers.RandomColorJitterSettings{
		{BrightnessFactor: []float64{1.5}}, {ContrastFactor: []float64{-0.1}}, {SaturationFactor: []float64{2, 3}},
		{HueFactor: []float64{1.2}}, {HueFactor: []float64{0.1, 0.2, 0.3}}, {ValueRange: &[2]float64{1, 1}},
	} {
		wantErr(t, layers.NewRandomColorJitter(s).Err(), "RandomColorJitter")
	}
	buildFails(t, layers.NewRandomColorJitter(layers.RandomColorJitterSettings{HueFactor: []float64{0.1}}), ops.Shape{-1, 4, 4, 1})
}
