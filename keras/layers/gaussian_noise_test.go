package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// meanStd returns the mean and standard deviation of v.
func meanStd(v []float64) (float64, float64) {
	var s, q float64
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	return m, math.Sqrt(q / float64(len(v)))
}

func TestGaussianNoiseConformance(t *testing.T) {
	layertest.Run(t, layers.NewGaussianNoise(0.1), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
	layertest.Run(t, layers.NewGaussianNoise(0, layers.WithSeed(3)), ops.Shape{2, 2, 3}, ops.Shape{2, 2, 3}, 0)
}

// TestGaussianNoiseTraining: in training the layer adds noise of mean 0
// and the given standard deviation; in inference it is the identity.
func TestGaussianNoiseTraining(t *testing.T) {
	const n = 20000
	x := seq(n, 1e-3, -5)
	in := ops.Value{Shape: ops.Shape{100, n / 100}, Data: x}
	if y := layertest.Forward(t, layers.NewGaussianNoise(0.7), false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewGaussianNoise(0.7, layers.WithSeed(1)), true, in)
	noise := make([]float64, n)
	for i := range noise {
		noise[i] = float64(y.Data[i] - x[i])
	}
	m, s := meanStd(noise)
	if math.Abs(m) > 4*0.7/math.Sqrt(n) || math.Abs(s-0.7) > 0.02 {
		t.Errorf("noise mean %.4f, std %.4f; want 0 and 0.7", m, s)
	}
	if err := layers.NewGaussianNoise(1.5).Err(); err == nil {
		t.Error("stddev 1.5 accepted (Keras takes [0, 1])")
	}
}

func equal32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
