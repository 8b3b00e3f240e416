package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomInvertConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomInvert(layers.RandomInvertSettings{}), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 3, 4, 2}, 0)
	layertest.Run(t, layers.NewRandomInvert(layers.RandomInvertSettings{}), ops.Shape{3, 4, 2}, ops.Shape{3, 4, 2}, 0)
}

// TestRandomInvertTraining: an image is inverted (ValueRange[1] - x)
// when a uniform threshold is below its probability, itself uniform in
// the factor range: half the images with the default factor, (0.7 +
// 1) / 2 of them with (0.7, 1); inference is the identity.
func TestRandomInvertTraining(t *testing.T) {
	const n = 3000
	x := pixels(n, 0.2)
	for _, c := range []struct {
		s    layers.RandomInvertSettings
		want float64
	}{
		{layers.RandomInvertSettings{ValueRange: &[2]float64{0, 1}}, 0.5},
		{layers.RandomInvertSettings{Range: &[2]float64{1, 0.7}, ValueRange: &[2]float64{0, 1}}, 0.85},
		{layers.RandomInvertSettings{ZeroFactor: true, ValueRange: &[2]float64{0, 1}}, 0},
	} {
		l := layers.NewRandomInvert(c.s, layers.WithSeed(12))
		identityInInference(t, l, x)
		y := layertest.Forward(t, l, true, x)
		inv := make([]float64, n)
		for i, v := range y.Data {
			switch v {
			case 0.8:
				inv[i] = 1
			case 0.2:
			default:
				t.Fatalf("image %d: %v, want 0.2 or 1 - 0.2", i, v)
			}
		}
		m, _ := meanStd(inv)
		if m < c.want-0.03 || m > c.want+0.03 {
			t.Errorf("%+v: %.3f of the images inverted, want %.3f", c.s, m, c.want)
		}
		if c.want > 0 {
			checkDraws(t, "inverted", inv, 0, 1, c.want, 0.03)
		}
	}
	for _, s := range []layers.RandomInvertSettings{{Factor: 1.5}, {Range: &[2]float64{2, 3}}} {
		wantErr(t, layers.NewRandomInvert(s).Err(), "RandomInvert")
	}
}
