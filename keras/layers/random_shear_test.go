package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomShearConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomShear(layers.RandomShearSettings{XFactor: [2]float64{-0.3, 0.3}, YFactor: [2]float64{0.1, 0.2}}), ops.Shape{2, 5, 6, 2}, ops.Shape{2, 5, 6, 2}, 0)
	for _, mode := range []string{"constant", "wrap", "nearest"} {
		layertest.Run(t, layers.NewRandomShear(layers.RandomShearSettings{XFactor: [2]float64{-0.5, 0.5}, FillMode: mode, Interpolation: "nearest"}), ops.Shape{5, 6, 1}, ops.Shape{5, 6, 1}, 0)
	}
}

// coordImages are n images whose channel 0 is the column and channel 1
// the row: a bilinear affine warp of them gives, inside the image, the
// input coordinates each output read.
func coordImages(n, h, w int) ops.Value {
	s := ops.Shape{n, h, w, 2}
	x := make([]float32, s.Size())
	for b := range n {
		for r := range h {
			for c := range w {
				i := ((b*h+r)*w + c) * 2
				x[i], x[i+1] = float32(c), float32(r)
			}
		}
	}
	return ops.Value{Shape: s, Data: x}
}

// TestRandomShearTraining: output (x, y) reads input (x + sx y, sy x + y)
// (read at row 2, column 4 of coordinate images); sx and sy are uniform
// in their ranges times one sign per image, - or + half the time each,
// drawn per image. In inference it is the identity.
func TestRandomShearTraining(t *testing.T) {
	const n, h, w = 2000, 8, 10
	in := coordImages(n, h, w)
	set := layers.RandomShearSettings{XFactor: [2]float64{-0.3, 0.3}, YFactor: [2]float64{0.1, 0.25}, FillMode: "constant"}
	if y := layertest.Forward(t, layers.NewRandomShear(set), false, in); !equal32(y.Data, in.Data) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewRandomShear(set, layers.WithSeed(9)), true, in)
	var sxs []float64
	neg := 0
	for b := range n {
		i := ((b*h+2)*w + 4) * 2
		sx := (float64(y.Data[i]) - 4) / 2
		sy := float64(y.Data[i+1]-2) / 4
		if math.Abs(sx) > 0.3+1e-5 || math.Abs(sy) < 0.1-1e-5 || math.Abs(sy) > 0.25+1e-5 {
			t.Fatalf("image %d: shears %v, %v outside the ranges", b, sx, sy)
		}
		if sy < 0 {
			neg++
		}
		sxs = append(sxs, sx)
	}
	if !near(neg, n, 0.5) {
		t.Errorf("%d of %d images sheared with the sign -, want half", neg, n)
	}
	m, sd := meanStd(sxs)
	if math.Abs(m) > 0.02 || math.Abs(sd-0.3/math.Sqrt(3)) > 0.01 {
		t.Errorf("sx: mean %.4f sd %.4f, want 0 and %.4f (uniform in [-0.3, 0.3])", m, sd, 0.3/math.Sqrt(3))
	}
	// Consecutive images draw independently: the correlation of
	// neighbours' sx is near 0.
	var cov float64
	for i := 1; i < n; i++ {
		cov += (sxs[i] - m) * (sxs[i-1] - m)
	}
	if r := cov / float64(n-1) / (sd * sd); math.Abs(r) > 0.1 {
		t.Errorf("neighbouring images' shears correlate by %.3f", r)
	}
}

func TestRandomShearErrors(t *testing.T) {
	wantErr(t, layers.NewRandomShear(layers.RandomShearSettings{XFactor: [2]float64{-0.2, 0.5}}, layers.WithName("sh")).Err(), "RandomShear", "sh", "x_factor")
	wantErr(t, layers.NewRandomShear(layers.RandomShearSettings{YFactor: [2]float64{0.5, 1.5}}).Err(), "y_factor")
	wantErr(t, layers.NewRandomShear(layers.RandomShearSettings{FillMode: "mirror"}).Err(), "RandomShear", "mirror")
	wantErr(t, layers.NewRandomShear(layers.RandomShearSettings{Interpolation: "bicubic"}).Err(), "RandomShear", "bicubic")
}
