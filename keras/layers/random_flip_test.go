package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// pixelFn maps an output pixel (y, x) to the input pixel it copies, or
// ok=false where the output holds the fill value.
type pixelFn func(y, x int) (sy, sx int, ok bool)

// matchImages returns, for each image b of y (shape ys), the index of the
// first candidate transform of image b of x (shape xs) that y equals, or
// fails the test if none does.
func matchImages(t *testing.T, x []float32, xs ops.Shape, y []float32, ys ops.Shape, fill float32, cands []pixelFn) []int {
	t.Helper()
	n, h, w, c := ys[0], ys[1], ys[2], ys[3]
	ih, iw := xs[1], xs[2]
	which := make([]int, n)
	for b := 0; b < n; b++ {
		which[b] = -1
	next:
		for k, f := range cands {
			for oy := 0; oy < h; oy++ {
				for ox := 0; ox < w; ox++ {
					sy, sx, ok := f(oy, ox)
					for ch := 0; ch < c; ch++ {
						want := fill
						if ok {
							want = x[((b*ih+sy)*iw+sx)*c+ch]
						}
						if y[((b*h+oy)*w+ox)*c+ch] != want {
							continue next
						}
					}
				}
			}
			which[b] = k
			break
		}
		if which[b] < 0 {
			t.Fatalf("image %d is none of the allowed transforms", b)
		}
	}
	return which
}

// counts tallies the matches of each of k candidates.
func counts(which []int, k int) []int {
	c := make([]int, k)
	for _, w := range which {
		c[w]++
	}
	return c
}

// near reports whether count of n is within 4 standard deviations of a
// binomial with probability p.
func near(count, n int, p float64) bool {
	return math.Abs(float64(count)-float64(n)*p) <= 4*math.Sqrt(float64(n)*p*(1-p))
}

func TestRandomFlipConformance(t *testing.T) {
	for _, mode := range []string{"horizontal", "vertical", "horizontal_and_vertical"} {
		layertest.Run(t, layers.NewRandomFlip(mode), ops.Shape{4, 3, 5, 2}, ops.Shape{4, 3, 5, 2}, 0)
	}
	layertest.Run(t, layers.NewRandomFlip("horizontal"), ops.Shape{3, 5, 2}, ops.Shape{3, 5, 2}, 0) // one unbatched image
}

func TestRandomFlipInferenceIsIdentity(t *testing.T) {
	x := seq(2*3*4*1, 1, 0)
	y := layertest.Forward(t, layers.NewRandomFlip(""), false, ops.Value{Shape: ops.Shape{2, 3, 4, 1}, Data: x})
	layertest.AllClose(t, "inference", y.Data, f64s(x), 0)
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestRandomFlipTraining(t *testing.T) {
	const n = 400
	s := ops.Shape{n, 3, 4, 2}
	h, w := s[1], s[2]
	id := pixelFn(func(y, x int) (int, int, bool) { return y, x, true })
	hf := pixelFn(func(y, x int) (int, int, bool) { return y, w - 1 - x, true })
	vf := pixelFn(func(y, x int) (int, int, bool) { return h - 1 - y, x, true })
	hv := pixelFn(func(y, x int) (int, int, bool) { return h - 1 - y, w - 1 - x, true })
	x := seq(s.Size(), 1, 0)
	for _, c := range []struct {
		mode  string
		cands []pixelFn
	}{
		{"horizontal", []pixelFn{id, hf}},
		{"vertical", []pixelFn{id, vf}},
		{"horizontal_and_vertical", []pixelFn{id, hf, vf, hv}},
	} {
		y := layertest.Forward(t, layers.NewRandomFlip(c.mode), true, ops.Value{Shape: s, Data: x})
		for k, cnt := range counts(matchImages(t, x, s, y.Data, y.Shape, 0, c.cands), len(c.cands)) {
			if !near(cnt, n, 1/float64(len(c.cands))) {
				t.Errorf("%s: transform %d chosen for %d of %d images", c.mode, k, cnt, n)
			}
		}
	}
	// One unbatched image is flipped or not.
	one := seq(3*4*1, 1, 0)
	y := layertest.Forward(t, layers.NewRandomFlip("horizontal"), true, ops.Value{Shape: ops.Shape{3, 4, 1}, Data: one})
	if !y.Shape.Equal(ops.Shape{3, 4, 1}) {
		t.Fatalf("unbatched: shape %v", y.Shape)
	}
	matchImages(t, one, ops.Shape{1, 3, 4, 1}, y.Data, ops.Shape{1, 3, 4, 1}, 0, []pixelFn{
		func(y, x int) (int, int, bool) { return y, x, true },
		func(y, x int) (int, int, bool) { return y, 3 - x, true },
	})
}

func TestRandomFlipConfigAndErrors(t *testing.T) {
	cfg := layers.NewRandomFlip("vertical", layers.WithSeed(5)).GetConfig()
	if cfg["mode"] != "vertical" || cfg["seed"] != int64(5) {
		t.Errorf("config %v", cfg)
	}
	if cfg := layers.NewRandomFlip("").GetConfig(); cfg["mode"] != "horizontal_and_vertical" || cfg["seed"] != nil {
		t.Errorf("default config %v", cfg)
	}
	wantErr(t, layers.NewRandomFlip("diagonal", layers.WithName("rf")).Err(), "RandomFlip", "rf", "diagonal")
	wantErr(t, layers.NewRandomFlip("vertical", layers.WithAxis(1)).Err(), "RandomFlip", "axis")
	_, err := layers.OutputShape(layers.NewRandomFlip("vertical", layers.WithName("rf2")), []ops.Shape{{-1, 4}})
	wantErr(t, err, "RandomFlip", "rf2", "rank-4")
}
