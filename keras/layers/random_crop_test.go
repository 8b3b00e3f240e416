package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomCropConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomCrop(4, 5), ops.Shape{2, 6, 7, 3}, ops.Shape{2, 4, 5, 3}, 0)
	layertest.Run(t, layers.NewRandomCrop(6, 7), ops.Shape{2, 6, 7, 3}, ops.Shape{2, 6, 7, 3}, 0)
	layertest.Run(t, layers.NewRandomCrop(2, 2), ops.Shape{5, 4, 1}, ops.Shape{2, 2, 1}, 0) // one unbatched image
}

// cropAt is the crop window at offset (oy, ox).
func cropAt(oy, ox int) pixelFn {
	return func(y, x int) (int, int, bool) { return y + oy, x + ox, true }
}

func TestRandomCropInferenceIsCenter(t *testing.T) {
	s := ops.Shape{2, 6, 7, 2}
	x := seq(s.Size(), 1, 0)
	for _, c := range []struct{ h, w, oy, ox int }{{4, 5, 1, 1}, {3, 4, 1, 1}, {5, 2, 0, 2}, {6, 7, 0, 0}, {1, 1, 2, 3}} {
		y := layertest.Forward(t, layers.NewRandomCrop(c.h, c.w), false, ops.Value{Shape: s, Data: x})
		if !y.Shape.Equal(ops.Shape{2, c.h, c.w, 2}) {
			t.Fatalf("%dx%d: shape %v", c.h, c.w, y.Shape)
		}
		matchImages(t, x, s, y.Data, y.Shape, 0, []pixelFn{cropAt(c.oy, c.ox)})
	}
}

func TestRandomCropTraining(t *testing.T) {
	const n = 400
	s := ops.Shape{n, 5, 6, 2}
	x := seq(s.Size(), 1, 0)
	var cands []pixelFn
	for oy := 0; oy <= 2; oy++ {
		for ox := 0; ox <= 2; ox++ {
			cands = append(cands, cropAt(oy, ox))
		}
	}
	y := layertest.Forward(t, layers.NewRandomCrop(3, 4), true, ops.Value{Shape: s, Data: x})
	if !y.Shape.Equal(ops.Shape{n, 3, 4, 2}) {
		t.Fatalf("shape %v", y.Shape)
	}
	for k, cnt := range counts(matchImages(t, x, s, y.Data, y.Shape, 0, cands), len(cands)) {
		if !near(cnt, n, 1/float64(len(cands))) {
			t.Errorf("offset %d chosen for %d of %d images", k, cnt, n)
		}
	}
	// An image of the crop's size passes unchanged.
	small := seq(2*3*4*2, 1, 0)
	y = layertest.Forward(t, layers.NewRandomCrop(3, 4), true, ops.Value{Shape: ops.Shape{2, 3, 4, 2}, Data: small})
	layertest.AllClose(t, "same size", y.Data, f64s(small), 0)
}

func TestRandomCropConfigAndErrors(t *testing.T) {
	cfg := layers.NewRandomCrop(3, 4, layers.WithSeed(1)).GetConfig()
	if cfg["height"] != 3 || cfg["width"] != 4 || cfg["seed"] != int64(1) || cfg["data_format"] != "channels_last" {
		t.Errorf("config %v", cfg)
	}
	wantErr(t, layers.NewRandomCrop(0, 4, layers.WithName("rc")).Err(), "RandomCrop", "rc", "height 0")
	wantErr(t, layers.NewRandomCrop(3, 4, layers.WithPadding("same")).Err(), "RandomCrop", "padding")
	_, err := layers.OutputShape(layers.NewRandomCrop(5, 4, layers.WithName("rc2")), []ops.Shape{{-1, 4, 8, 1}})
	wantErr(t, err, "RandomCrop", "rc2", "4x8", "5x4")
	_, err = layers.OutputShape(layers.NewRandomCrop(2, 2, layers.WithName("rc3")), []ops.Shape{{-1, 4}})
	wantErr(t, err, "RandomCrop", "rc3", "rank-4")
}
