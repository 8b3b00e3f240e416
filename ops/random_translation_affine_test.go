package ops_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestRandomTranslationAffineGradient(t *testing.T) {
	for _, interp := range []string{"nearest", "bilinear"} {
		for _, mode := range []string{"reflect", "wrap", "nearest", "constant"} {
			for _, f := range [][2]float32{{0.3, -0.25}, {-0.45, 0.1}} {
				checkGrad(t, gradCase{name: "RandomTranslation" + mode + interp, shapes: []ops.Shape{{2, 5, 6, 2}},
					build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
						return ops.SeededRandomTranslationAffine(x[0], [2]float32{f[0], f[0]}, [2]float32{f[1], f[1]}, mode, 0.5,
							interp, ops.NewSeedGenerator("tr", 3))
					}})
			}
		}
	}
}

// TestRandomTranslationAffineValues: a fixed shift of half a pixel right
// and a whole pixel down is the bilinear blend of the two neighbours,
// filled by the constant above; ranges vary the shift over images.
func TestRandomTranslationAffineValues(t *testing.T) {
	s := ops.Shape{1, 3, 4, 1}
	x := []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	tr := ops.NewTrace(true, 0, 1)
	// dy = 1/3 * 3 = 1 row, dx = 0.125 * 4 = 0.5 column.
	y := ops.SeededRandomTranslationAffine(tr.Constant(s, x), [2]float32{1.0 / 3, 1.0 / 3}, [2]float32{0.125, 0.125}, "constant", -1, "bilinear", ops.NewSeedGenerator("t", 1))
	got := evalAll(t, tr, y)[0]
	// Output (r, c) reads input (r-1, c-0.5): row 0 from row -1 (fill);
	// column 0 blends the fill at -0.5... (c-0.5 = -0.5: half fill, half x[., 0]).
	want := []float32{-1, -1, -1, -1, -0.5, 0.5, 1.5, 2.5, 1.5, 4.5, 5.5, 6.5}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("y = %v, want %v", got, want)
		}
	}
	s = ops.Shape{16, 5, 5, 1}
	xs := make([]float32, s.Size())
	for i := range xs {
		xs[i] = float32(i % 25)
	}
	tr = ops.NewTrace(true, 0, 1)
	ys := evalAll(t, tr, ops.SeededRandomTranslationAffine(tr.Constant(s, xs), [2]float32{-0.5, 0.5}, [2]float32{-0.5, 0.5}, "reflect", 0, "bilinear", ops.NewSeedGenerator("t", 2)))[0]
	distinct := map[float32]bool{}
	for b := range 16 {
		distinct[ys[b*25+12]] = true
	}
	if len(distinct) < 8 {
		t.Errorf("the centre pixel of 16 images took %d values: the shifts do not vary over images", len(distinct))
	}
	mustFail(t, "RandomTranslation", func() {
		ops.SeededRandomTranslationAffine(tr.Constant(s, xs), [2]float32{0.5, 0.1}, [2]float32{0, 0}, "reflect", 0, "bilinear", ops.NewSeedGenerator("t", 2))
	}, "ordered ranges")
}
