package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomBrightnessConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomBrightness(layers.RandomBrightnessSettings{Factor: 0.2}), ops.Shape{2, 3, 3, 2}, ops.Shape{2, 3, 3, 2}, 0)
}

// TestRandomBrightnessTraining: in training each image gets one delta,
// uniform in the factor range times the value range's width, and is
// clipped to the value range; in inference it is the identity.
func TestRandomBrightnessTraining(t *testing.T) {
	const n, hw = 2000, 4
	x := make([]float32, n*hw)
	for i := range x {
		x[i] = 0.5 + 0.01*float32(i%hw)
	}
	in := ops.Value{Shape: ops.Shape{n, 2, 2, 1}, Data: x}
	vr := [2]float64{0, 2}
	s := layers.RandomBrightnessSettings{Range: &[2]float64{0.1, -0.05}, ValueRange: &vr}
	if y := layertest.Forward(t, layers.NewRandomBrightness(s), false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewRandomBrightness(s, layers.WithSeed(3)), true, in)
	deltas := make([]float64, n)
	for img := range n {
		d := float64(y.Data[img*hw] - x[img*hw])
		for p := 1; p < hw; p++ {
			if e := float64(y.Data[img*hw+p]-x[img*hw+p]) - d; math.Abs(e) > 1e-6 {
				t.Fatalf("image %d: pixel %d moved by %v more than pixel 0", img, p, e)
			}
		}
		if d < -0.05*2-1e-6 || d > 0.1*2+1e-6 {
			t.Fatalf("image %d: delta %v outside [-0.1, 0.2]", img, d)
		}
		deltas[img] = d
	}
	m, _ := meanStd(deltas)
	if math.Abs(m-0.05) > 0.01 {
		t.Errorf("mean delta %.4f, want 0.05", m)
	}
	hi := layers.RandomBrightnessSettings{Range: &[2]float64{1, 1}}
	y = layertest.Forward(t, layers.NewRandomBrightness(hi), true, ops.Value{Shape: ops.Shape{1, 1, 1, 2}, Data: []float32{3, 200}})
	layertest.AllClose(t, "clipped", y.Data, []float64{255, 255}, 0)
	if err := layers.NewRandomBrightness(layers.RandomBrightnessSettings{Factor: 1.5}).Err(); err == nil {
		t.Error("factor 1.5 accepted")
	}
}
