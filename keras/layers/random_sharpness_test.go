package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomSharpnessConformance(t *testing.T) {
	s := layers.RandomSharpnessSettings{Factor: 0.5, ValueRange: &[2]float64{-5, 5}}
	layertest.Run(t, layers.NewRandomSharpness(s), ops.Shape{2, 4, 5, 2}, ops.Shape{2, 4, 5, 2}, 0)
	layertest.Run(t, layers.NewRandomSharpness(s), ops.Shape{4, 5, 2}, ops.Shape{4, 5, 2}, 0)
}

// TestRandomSharpnessTraining: on a 3x3 image with one bright centre, the
// blur of the centre is 5/13 of it and the output centre is x + (1 - 2f)
// (blur - x), f uniform in the factor range per image; inference is the
// identity.
func TestRandomSharpnessTraining(t *testing.T) {
	const n = 3000
	x := ops.Value{Shape: ops.Shape{n, 3, 3, 1}, Data: make([]float32, 9*n)}
	for i := range n {
		x.Data[9*i+4] = 100
	}
	l := layers.NewRandomSharpness(layers.RandomSharpnessSettings{Range: &[2]float64{0.9, 0.1}, ValueRange: &[2]float64{0, 1000}}, layers.WithSeed(11))
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	f := make([]float64, n)
	blur := 500.0 / 13
	for i := range n {
		f[i] = (1 - (float64(y.Data[9*i+4])-100)/(blur-100)) / 2
	}
	checkDraws(t, "factor", f, 0.1, 0.9, 0.5, 0.015)
	for _, s := range []layers.RandomSharpnessSettings{{Factor: 1.5}, {Factor: -0.5}, {Range: &[2]float64{-2, -1}}} {
		wantErr(t, layers.NewRandomSharpness(s).Err(), "RandomSharpness")
	}
}
