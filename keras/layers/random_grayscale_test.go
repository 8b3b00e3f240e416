package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomGrayscaleConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomGrayscale(0.5), ops.Shape{2, 3, 4, 3}, ops.Shape{2, 3, 4, 3}, 0)
	layertest.Run(t, layers.NewRandomGrayscale(0.5), ops.Shape{3, 4, 3}, ops.Shape{3, 4, 3}, 0)
	layertest.Run(t, layers.NewRandomGrayscale(1), ops.Shape{2, 3, 4, 1}, ops.Shape{2, 3, 4, 1}, 0)
}

// TestRandomGrayscaleTraining: each image is either unchanged or its
// grayscale in every channel, a fraction factor of them, drawn per
// image; inference is the identity; bad factors and channel counts are
// refused.
func TestRandomGrayscaleTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 200, 50, 100)
	gray := float32(0.2989*200 + 0.5870*50 + 0.1140*100)
	l := layers.NewRandomGrayscale(0.3, layers.WithSeed(4))
	identityInInference(t, l, x)
	y := layertest.Forward(t, l, true, x)
	conv := make([]float64, n)
	for i := range n {
		p := y.Data[3*i : 3*i+3]
		switch {
		case equal32(p, x.Data[3*i:3*i+3]):
		case math.Abs(float64(p[0]-gray)) < 1e-3 && p[0] == p[1] && p[1] == p[2]:
			conv[i] = 1
		default:
			t.Fatalf("image %d: %v is neither the input nor its grayscale %v", i, p, gray)
		}
	}
	checkDraws(t, "converted", conv, 0, 1, 0.3, 0.03)
	for _, f := range []float64{-0.1, 1.5, math.NaN()} {
		wantErr(t, layers.NewRandomGrayscale(f).Err(), "RandomGrayscale", "factor")
	}
	buildFails(t, layers.NewRandomGrayscale(0.5), ops.Shape{-1, 4, 4, 4})
	buildFails(t, layers.NewRandomGrayscale(0.5), ops.Shape{-1, 4})
}
