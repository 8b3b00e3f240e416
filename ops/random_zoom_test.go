package ops_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestRandomZoomGradient: finite differences of the zoom with ranges of
// one value (deterministic draws), zooming in and out, every fill mode.
func TestRandomZoomGradient(t *testing.T) {
	for _, interp := range []string{"nearest", "bilinear"} {
		for _, mode := range []string{"reflect", "wrap", "nearest", "constant"} {
			for _, z := range [][2]float32{{0.5, -0.3}, {-0.4, 0.7}} {
				checkGrad(t, gradCase{name: "RandomZoom" + mode + interp, shapes: []ops.Shape{{2, 5, 6, 2}},
					build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
						return ops.SeededRandomZoom(x[0], [2]float32{z[0], z[0]}, [2]float32{z[1], z[1]}, false, mode, 0.5,
							interp, ops.NewSeedGenerator("zoom", 3))
					}})
			}
		}
	}
}

// TestRandomZoomDraws: with a range the factors vary over images and
// replays, and a zoom of 0 is the identity.
func TestRandomZoomDraws(t *testing.T) {
	s := ops.Shape{8, 9, 9, 1}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = float32(i % 81)
	}
	run := func(h [2]float32) [][]float32 {
		tr := ops.NewTrace(true, 0, 1)
		y := ops.SeededRandomZoom(tr.Constant(s, x), h, h, true, "constant", -1, "nearest", ops.NewSeedGenerator("z", 1))
		return evalTwice(t, tr, y)
	}
	ident := run([2]float32{0, 0})
	for i := range x {
		if ident[0][i] != x[i] {
			t.Fatalf("zoom 0: y[%d] = %v, x %v", i, ident[0][i], x[i])
		}
	}
	ys := run([2]float32{-0.5, 0.5})
	same := func(a, b []float32) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if same(ys[0], ys[1]) {
		t.Error("two replays drew the same zooms")
	}
	// Factors uniform in [0.5, 1.5]: a 9x9 image is unchanged only for
	// |f-1| < 1/8, so most of the 8 images differ from one another.
	distinct := map[string]bool{}
	for b := range 8 {
		distinct[fmt.Sprint(ys[0][b*81:(b+1)*81])] = true
	}
	if len(distinct) < 4 {
		t.Errorf("8 images got only %d distinct zooms", len(distinct))
	}
}

// evalTwice runs y's graph twice (two replays) and returns both outputs.
func evalTwice(t *testing.T, tr *ops.Trace, y ops.Tensor) [][]float32 {
	t.Helper()
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float32
	for range 2 {
		v, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]float32(nil), v[0].Data...))
	}
	return out
}

// TestRandomRotationGradient: finite differences of the rotation with
// ranges of one value (deterministic draws), every fill mode.
func TestRandomRotationGradient(t *testing.T) {
	for _, interp := range []string{"nearest", "bilinear"} {
		for _, mode := range []string{"reflect", "wrap", "nearest", "constant"} {
			for _, f := range []float32{0.1, -0.35} {
				checkGrad(t, gradCase{name: "RandomRotation" + mode + interp, shapes: []ops.Shape{{2, 5, 6, 2}},
					build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
						return ops.SeededRandomRotation(x[0], [2]float32{f, f}, mode, 0.5, interp, ops.NewSeedGenerator("rot", 3))
					}})
			}
		}
	}
}

// TestRandomRotationHalfTurn: a half turn maps pixel (y, x) to
// (h-1-y, w-1-x), and a range draws angles that vary over images.
func TestRandomRotationHalfTurn(t *testing.T) {
	s := ops.Shape{3, 5, 7, 1}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = float32(i)
	}
	tr := ops.NewTrace(true, 0, 1)
	ys := evalTwice(t, tr, ops.SeededRandomRotation(tr.Constant(s, x), [2]float32{0.5, 0.5}, "constant", -1, "nearest", ops.NewSeedGenerator("r", 1)))
	for b := range 3 {
		for y := range 5 {
			for xx := range 7 {
				got, want := ys[0][(b*5+y)*7+xx], x[(b*5+4-y)*7+6-xx]
				if got != want {
					t.Fatalf("image %d (%d, %d) = %v, want %v", b, y, xx, got, want)
				}
			}
		}
	}
	tr = ops.NewTrace(true, 0, 1)
	s = ops.Shape{8, 9, 9, 1}
	x = make([]float32, s.Size())
	for i := range x {
		x[i] = float32(i % 81)
	}
	ys = evalTwice(t, tr, ops.SeededRandomRotation(tr.Constant(s, x), [2]float32{-0.5, 0.5}, "constant", -1, "nearest", ops.NewSeedGenerator("r", 1)))
	distinct := map[string]bool{}
	for b := range 8 {
		distinct[fmt.Sprint(ys[0][b*81:(b+1)*81])] = true
	}
	if len(distinct) < 5 {
		t.Errorf("8 images got only %d distinct rotations", len(distinct))
	}
}
