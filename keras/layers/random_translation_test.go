package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandomTranslationConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandomTranslation(0.2, 0.3), ops.Shape{2, 5, 6, 2}, ops.Shape{2, 5, 6, 2}, 0)
	for _, mode := range []string{"constant", "wrap", "nearest"} {
		layertest.Run(t, layers.NewRandomTranslation(0.5, 0.5, layers.WithFillMode(mode)), ops.Shape{2, 4, 4, 1}, ops.Shape{2, 4, 4, 1}, 0)
	}
	layertest.Run(t, layers.NewRandomTranslation(0.5, 0), ops.Shape{4, 4, 1}, ops.Shape{4, 4, 1}, 0) // one unbatched image
}

// shiftRef is the translation by (dy, dx) under a fill mode, written out
// case by case: output (y, x) reads input (y-dy, x-dx), and outside the
// image "constant" gives the fill value, "nearest" the edge pixel, "wrap"
// the pixel a period away and "reflect" the mirror image about the edge
// (the edge pixel repeated).
func shiftRef(mode string, dy, dx, h, w int) pixelFn {
	m := func(i, n int) (int, bool) {
		switch mode {
		case "constant":
			return i, i >= 0 && i < n
		case "nearest":
			return min(max(i, 0), n-1), true
		case "wrap":
			return ((i % n) + n) % n, true
		}
		for i < 0 || i >= n {
			if i < 0 {
				i = -1 - i
			} else {
				i = 2*n - 1 - i
			}
		}
		return i, true
	}
	return func(y, x int) (int, int, bool) {
		sy, oky := m(y-dy, h)
		sx, okx := m(x-dx, w)
		return sy, sx, oky && okx
	}
}

func TestRandomTranslationInferenceIsIdentity(t *testing.T) {
	x := seq(2*4*5*1, 1, 0)
	y := layertest.Forward(t, layers.NewRandomTranslation(0.5, 0.5), false, ops.Value{Shape: ops.Shape{2, 4, 5, 1}, Data: x})
	layertest.AllClose(t, "inference", y.Data, f64s(x), 0)
}

func TestRandomTranslationTraining(t *testing.T) {
	const n = 400
	s := ops.Shape{n, 10, 7, 2}
	x := seq(s.Size(), 1, 1)
	// factors 0.2 and 0.3: whole shifts up to 2 rows (0.2*10) and 2 columns (0.3*7 = 2.1).
	for _, c := range []struct {
		mode string
		fill float64
	}{{"constant", 0}, {"constant", -7}, {"reflect", 0}, {"wrap", 0}, {"nearest", 0}} {
		opts := []layers.Option{layers.WithFillMode(c.mode)}
		if c.fill != 0 {
			opts = append(opts, layers.WithFillValue(c.fill))
		}
		var cands []pixelFn
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				cands = append(cands, shiftRef(c.mode, dy, dx, 10, 7))
			}
		}
		y := layertest.Forward(t, layers.NewRandomTranslation(0.2, 0.3, opts...), true, ops.Value{Shape: s, Data: x})
		which := matchImages(t, x, s, y.Data, y.Shape, float32(c.fill), cands)
		if c.mode != "constant" {
			continue
		}
		// Every shift gives a different image here: each of the 25 is
		// drawn about equally often.
		for k, cnt := range counts(which, len(cands)) {
			if !near(cnt, n, 1/float64(len(cands))) {
				t.Errorf("shift (%d, %d) drawn for %d of %d images", k/5-2, k%5-2, cnt, n)
			}
		}
	}
	// The default fill mode is reflect.
	l := layers.NewRandomTranslation(0.2, 0)
	if cfg := l.GetConfig(); cfg["fill_mode"] != "reflect" {
		t.Errorf("default fill mode %v", cfg["fill_mode"])
	}
	y := layertest.Forward(t, l, true, ops.Value{Shape: s, Data: x})
	var cands []pixelFn
	for dy := -2; dy <= 2; dy++ {
		cands = append(cands, shiftRef("reflect", dy, 0, 10, 7))
	}
	matchImages(t, x, s, y.Data, y.Shape, 0, cands)
}

func TestRandomTranslationConfigAndErrors(t *testing.T) {
	cfg := layers.NewRandomTranslation(0.1, 0.2, layers.WithFillMode("constant"), layers.WithFillValue(0.5), layers.WithSeed(3)).GetConfig()
	for _, k := range []string{"height_factor", "width_factor", "fill_mode", "fill_value", "interpolation", "seed", "data_format"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("config lacks %q", k)
		}
	}
	if cfg["height_factor"] != 0.1 || cfg["width_factor"] != 0.2 || cfg["fill_mode"] != "constant" || cfg["fill_value"] != 0.5 || cfg["seed"] != int64(3) {
		t.Errorf("config %v", cfg)
	}
	wantErr(t, layers.NewRandomTranslation(1.5, 0, layers.WithName("rt")).Err(), "RandomTranslation", "rt", "height_factor")
	wantErr(t, layers.NewRandomTranslation(0, -0.1).Err(), "RandomTranslation", "width_factor")
	wantErr(t, layers.NewRandomTranslation(0.1, 0.1, layers.WithFillMode("mirror")).Err(), "RandomTranslation", "mirror")
	wantErr(t, layers.NewRandomTranslation(0.1, 0.1, layers.WithKeepDims(true)).Err(), "RandomTranslation", "keepdims")
}
