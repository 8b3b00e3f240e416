package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomColorDegenerationConformance(t *testing.T) {
	s := layers.RandomColorDegenerationSettings{Factor: 0.5}
	layertest.Run(t, layers.NewRandomColorDegeneration(s), ops.Shape{2, 3, 4, 3}, ops.Shape{2, 3, 4, 3}, 0)
	layertest.Run(t, layers.NewRandomColorDegeneration(s), ops.Shape{3, 4, 3}, ops.Shape{3, 4, 3}, 0)
}

// TestRandomColorDegenerationTraining: each image becomes x + f (gray -
// x) with f uniform in the factor range, drawn per image, clipped to the
// value range; inference is the identity.
func TestRandomColorDegenerationTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 200, 50, 100)
	gray := 0.2989*200 + 0.5870*50 + 0.1140*100
	l := layers.NewRandomColorDegeneration(layers.RandomColorDegenerationSettings{Range: &[2]float64{0.8, -0.3}}, layers.WithSeed(7))
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	f := make([]float64, n)
	for i := range n {
		f[i] = (float64(y.Data[3*i]) - 200) / (gray - 200)
		if g := (float64(y.Data[3*i+1]) - 50) / (gray - 50); g-f[i] > 1e-4 || f[i]-g > 1e-4 {
			t.Fatalf("image %d: factors %v and %v in one image", i, f[i], g)
		}
	}
	checkDraws(t, "factor", f, -0.3, 0.8, 0.25, 0.01)
	clip := layers.NewRandomColorDegeneration(layers.RandomColorDegenerationSettings{Range: &[2]float64{-1, -1}, ValueRange: &[2]float64{60, 220}})
	y = layertest.Forward(t, clip, true, pixels(1, 200, 50, 100))
	layertest.AllClose(t, "clipped", y.Data, []float64{220, 60, 99.47}, 1e-4)
	for _, s := range []layers.RandomColorDegenerationSettings{{Factor: 1.5}, {Range: &[2]float64{2, 3}}} {
		wantErr(t, layers.NewRandomColorDegeneration(s).Err(), "RandomColorDegeneration")
	}
	buildFails(t, layers.NewRandomColorDegeneration(layers.RandomColorDegenerationSettings{Factor: 0.1}), ops.Shape{-1, 4, 4, 1})
}
