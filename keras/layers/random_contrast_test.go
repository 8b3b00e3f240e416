package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomContrastConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomContrast(layers.RandomContrastSettings{Factor: 0.3}), ops.Shape{2, 5, 6, 2}, ops.Shape{2, 5, 6, 2}, 0)
	layertest.Run(t, layers.NewRandomContrast(layers.RandomContrastSettings{Factor: 0.3}), ops.Shape{5, 6, 2}, ops.Shape{5, 6, 2}, 0)
}

// TestRandomContrastTraining: each image is (x - mean)*f + mean per
// channel with one f per image in [1-lower, 1+upper], f varies over
// images and calls, and the output is clipped to the value range.
func TestRandomContrastTraining(t *testing.T) {
	const n, h, w, c = 50, 4, 3, 2
	s := ops.Shape{n, h, w, c}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = float32((i*37)%101) / 10 // in [0, 10.1)
	}
	l := layers.NewRandomContrast(layers.RandomContrastSettings{Range: &[2]float64{0.2, 0.5}, ValueRange: &[2]float64{-100, 100}}, layers.WithSeed(3))
	var prev []float64
	for call := range 2 {
		y := layertest.Forward(t, l, true, ops.Value{Shape: s, Data: x})
		var fs []float64
		for b := range n {
			f := math.NaN()
			for ch := range c {
				mean := 0.0
				for p := range h * w {
					mean += float64(x[(b*h*w+p)*c+ch])
				}
				mean /= h * w
				for p := range h * w {
					i := (b*h*w+p)*c + ch
					d := float64(x[i]) - mean
					if math.Abs(d) < 1 {
						continue
					}
					g := (float64(y.Data[i]) - mean) / d
					if math.IsNaN(f) {
						f = g
					} else if math.Abs(g-f) > 1e-4 {
						t.Fatalf("call %d image %d: factors %v and %v within one image", call, b, f, g)
					}
				}
			}
			if !(f >= 0.8-1e-5 && f <= 1.5+1e-5) {
				t.Fatalf("call %d image %d: factor %v outside [0.8, 1.5]", call, b, f)
			}
			fs = append(fs, f)
		}
		lo, hi := fs[0], fs[0]
		for _, f := range fs {
			lo, hi = min(lo, f), max(hi, f)
		}
		if hi-lo < 0.3 {
			t.Errorf("call %d: factors span only [%v, %v] over %d images", call, lo, hi, n)
		}
		if prev != nil && prev[0] == fs[0] && prev[1] == fs[1] {
			t.Error("the second call drew the same factors")
		}
		prev = fs
	}
	// Clipping to a narrow range.
	l = layers.NewRandomContrast(layers.RandomContrastSettings{Factor: 0.5, ValueRange: &[2]float64{2, 5}})
	y := layertest.Forward(t, l, true, ops.Value{Shape: s, Data: x})
	for i, v := range y.Data {
		if v < 2 || v > 5 {
			t.Fatalf("y[%d] = %v outside the value range [2, 5]", i, v)
		}
	}
	// Inference is the identity.
	y = layertest.Forward(t, l, false, ops.Value{Shape: s, Data: x})
	for i := range x {
		if float32(y.Data[i]) != x[i] {
			t.Fatalf("inference y[%d] = %v, x %v", i, y.Data[i], x[i])
		}
	}
	if layers.NewRandomContrast(layers.RandomContrastSettings{Factor: 1.5}).Err() == nil {
		t.Error("factor 1.5 accepted")
	}
}
