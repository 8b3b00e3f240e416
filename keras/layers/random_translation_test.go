package layers_test

import (
	"math"
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
	const n = 800
	s := ops.Shape{n, 10, 7, 2}
	x := seq(s.Size(), 1, 1)
	// factors 0.2 and 0.3: shifts t uniform in [-2, 2] rows (0.2*10) and
	// [-2.1, 2.1] columns (0.3*7), which "nearest" rounds: whole shifts of
	// up to 2 rows and 2 columns.
	for _, c := range []struct {
		mode string
		fill float64
	}{{"constant", 0}, {"constant", -7}, {"reflect", 0}, {"wrap", 0}, {"nearest", 0}} {
		opts := []layers.Option{layers.WithFillMode(c.mode), layers.WithInterpolation("nearest")}
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
		if c.mode == "wrap" || c.mode == "nearest" {
			// TensorFlow maps real coordinates in these modes before
			// rounding (its wrap by a period of n-1), so a shifted image
			// is not a whole shift near the borders: every output is
			// still one of its image's pixels.
			for b := range n {
				img := map[float32]bool{}
				for _, v := range x[b*140 : (b+1)*140] {
					img[v] = true
				}
				for i, v := range y.Data[b*140 : (b+1)*140] {
					if !img[v] {
						t.Fatalf("%s: image %d output %d = %v is none of its pixels", c.mode, b, i, v)
					}
				}
			}
			continue
		}
		which := matchImages(t, x, s, y.Data, y.Shape, float32(c.fill), cands)
		if c.mode != "constant" {
			continue
		}
		// Every shift gives a different image here. The row shift is
		// round(t), t uniform in [-2, 2]: 0 and ±1 a quarter of the time
		// each, ±2 an eighth.
		rows := make([]int, 5)
		for k, cnt := range counts(which, len(cands)) {
			rows[k/5] += cnt
		}
		for dy, p := range []float64{1.0 / 8, 1.0 / 4, 1.0 / 4, 1.0 / 4, 1.0 / 8} {
			if !near(rows[dy], n, p) {
				t.Errorf("row shift %d drawn for %d of %d images, want about %.0f", dy-2, rows[dy], n, p*n)
			}
		}
	}
	// The defaults: bilinear interpolation, fill mode reflect; a real shift
	// blends neighbouring pixels, so most outputs are no input value.
	l := layers.NewRandomTranslation(0.2, 0)
	if cfg := l.GetConfig(); cfg["fill_mode"] != "reflect" || cfg["interpolation"] != "bilinear" {
		t.Errorf("defaults: fill mode %v, interpolation %v", cfg["fill_mode"], cfg["interpolation"])
	}
	y := layertest.Forward(t, l, true, ops.Value{Shape: s, Data: x})
	blended := 0
	for i, v := range y.Data {
		if v != float32(math.Round(float64(v))) && i%140 == 3 {
			blended++
		}
	}
	if blended < n/2 {
		t.Errorf("bilinear: %d of %d sampled outputs are blends of neighbours", blended, n)
	}
}

// TestRandomTranslationRange: a range of one value shifts every image by
// that amount (a whole pixel down, by Keras' (lower, upper) form), the
// config writes the pair, and the registry's reading of it makes the same
// layer.
func TestRandomTranslationRange(t *testing.T) {
	s := ops.Shape{2, 4, 3, 1}
	x := seq(s.Size(), 1, 1)
	l := layers.NewRandomTranslationRange([2]float64{0.25, 0.25}, [2]float64{0, 0}, layers.WithFillMode("constant"), layers.WithFillValue(-1))
	y := layertest.Forward(t, l, true, ops.Value{Shape: s, Data: x})
	want := []float64{-1, -1, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1, -1, 13, 14, 15, 16, 17, 18, 19, 20, 21}
	layertest.AllClose(t, "shift 1 row down", y.Data, want, 1e-6)
	cfg := l.GetConfig()
	if hf, ok := cfg["height_factor"].([]any); !ok || hf[0] != 0.25 || cfg["width_factor"] != 0.0 {
		t.Errorf("factors in the config: %v, %v", cfg["height_factor"], cfg["width_factor"])
	}
	wantErr(t, layers.NewRandomTranslationRange([2]float64{0.3, 0.1}, [2]float64{0, 0}).Err(), "RandomTranslation", "height_factor")
	wantErr(t, layers.NewRandomTranslation(0.1, 0.1, layers.WithInterpolation("bicubic")).Err(), "RandomTranslation", "bicubic")
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
