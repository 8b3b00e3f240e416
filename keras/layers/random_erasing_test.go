package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomErasingConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomErasing(layers.RandomErasingSettings{}), ops.Shape{2, 5, 6, 3}, ops.Shape{2, 5, 6, 3}, 0)
	fill := 0.5
	layertest.Run(t, layers.NewRandomErasing(layers.RandomErasingSettings{FillValue: &fill}), ops.Shape{5, 6, 2}, ops.Shape{5, 6, 2}, 0)
}

// box finds the pixels of image b (h x w x c) that differ from x: it
// reports whether they form one axis-aligned box, every channel, and its
// width and height.
func box(y, x []float32, b, h, w, c int) (ok bool, bw, bh int) {
	r0, r1, c0, c1 := h, -1, w, -1
	n := 0
	for r := range h {
		for col := range w {
			i := ((b*h+r)*w + col) * c
			if y[i] != x[i] {
				n++
				r0, r1, c0, c1 = min(r0, r), max(r1, r), min(c0, col), max(c1, col)
			}
		}
	}
	if n == 0 {
		return true, 0, 0
	}
	bw, bh = c1-c0+1, r1-r0+1
	if n != bw*bh {
		return false, bw, bh
	}
	for r := r0; r <= r1; r++ {
		for col := c0; col <= c1; col++ {
			for k := range c {
				i := ((b*h+r)*w+col)*c + k
				if y[i] == x[i] {
					return false, bw, bh
				}
			}
		}
	}
	return true, bw, bh
}

// TestRandomErasingTraining: in training an image is erased with
// probability (f0+f1)/2 (p uniform in the factor range against a uniform
// threshold), its box covering every channel, with sides of sqrt(s)
// times the image's (s in the scale range, so within a pixel of [sqrt(s0),
// sqrt(s1)] times the side), filled with the fill value clipped to the
// value range; boxes vary from image to image; the default fill is normal
// noise times the range's upper bound, clipped (half of it at the lower
// bound). In inference it is the identity.
func TestRandomErasingTraining(t *testing.T) {
	const n, h, w, c = 2000, 10, 12, 2
	s := ops.Shape{n, h, w, c}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = 3
	}
	in := ops.Value{Shape: s, Data: x}
	fill := -7.0
	set := layers.RandomErasingSettings{Factor: &[2]float64{0.6, 0.2}, Scale: &[2]float64{0.04, 0.25}, FillValue: &fill, ValueRange: &[2]float64{-1, 5}}
	if y := layertest.Forward(t, layers.NewRandomErasing(set), false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewRandomErasing(set, layers.WithSeed(5)), true, in)
	erased := 0
	shapes := map[[2]int]bool{}
	for b := range n {
		ok, bw, bh := box(y.Data, x, b, h, w, c)
		if !ok {
			t.Fatalf("image %d: the erased pixels are not one box over every channel", b)
		}
		if bw == 0 {
			continue
		}
		erased++
		shapes[[2]int{bw, bh}] = true
		if float64(bw) < math.Sqrt(0.04)*w-1 || float64(bw) > math.Sqrt(0.25)*w+1 || float64(bh) < math.Sqrt(0.04)*h-1 || float64(bh) > math.Sqrt(0.25)*h+1 {
			t.Fatalf("image %d: box %dx%d outside the scale's sides", b, bw, bh)
		}
	}
	for i, v := range y.Data {
		if v != 3 && v != -1 {
			t.Fatalf("y[%d] = %v: the fill -7 clipped to the value range is -1", i, v)
		}
	}
	if !near(erased, n, 0.4) {
		t.Errorf("%d of %d images erased, want about 40%%", erased, n)
	}
	if len(shapes) < 8 {
		t.Errorf("only %d box shapes drawn", len(shapes))
	}
	// The default fill: N(0, 255) clipped to (0, 255).
	y = layertest.Forward(t, layers.NewRandomErasing(layers.RandomErasingSettings{Factor: &[2]float64{1, 1}}, layers.WithSeed(2)), true, in)
	zeros, noise := 0, 0
	for i, v := range y.Data {
		if v != x[i] {
			noise++
			if v == 0 {
				zeros++
			}
			if v < 0 || v > 255 {
				t.Fatalf("noise %v outside the value range", v)
			}
		}
	}
	if noise < n*4 || !near(zeros, noise, 0.5) {
		t.Errorf("%d noise values, %d of them 0: want many, about half", noise, zeros)
	}
}

func TestRandomErasingErrors(t *testing.T) {
	nan := math.NaN()
	wantErr(t, layers.NewRandomErasing(layers.RandomErasingSettings{Factor: &[2]float64{1.5, 2}}, layers.WithName("er")).Err(), "RandomErasing", "er", "factor")
	wantErr(t, layers.NewRandomErasing(layers.RandomErasingSettings{Scale: &[2]float64{-0.5, -0.1}}).Err(), "RandomErasing", "scale")
	wantErr(t, layers.NewRandomErasing(layers.RandomErasingSettings{ValueRange: &[2]float64{1, 0}}).Err(), "RandomErasing", "value_range")
	wantErr(t, layers.NewRandomErasing(layers.RandomErasingSettings{FillValue: &nan}).Err(), "RandomErasing", "fill_value")
	l := layers.NewRandomErasing(layers.RandomErasingSettings{FillRGB: &[3]float64{1, 2, 3}})
	wantErr(t, l.Build([]ops.Shape{{-1, 4, 4, 2}}), "RandomErasing", "3 channels")
	wantErr(t, layers.NewRandomErasing(layers.RandomErasingSettings{}).Build([]ops.Shape{{-1, 4}}), "rank-4")
}
