package ops_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestImageProjectiveTransformGradient: finite differences with respect
// to the images, for a shear, a perspective warp (c0, c1 not 0) and a
// zoom, every fill mode and both interpolations.
func TestImageProjectiveTransformGradient(t *testing.T) {
	tfs := [][]float32{
		{1, 0.3, 0, -0.2, 1, 0, 0, 0},
		{0.9, 0.1, 0.4, 0.05, 1.1, -0.3, 0.02, -0.03},
		{1.3, 0, -1.2, 0, 0.7, 0.9, 0, 0},
	}
	for _, interp := range []string{"nearest", "bilinear"} {
		for _, mode := range []string{"reflect", "wrap", "nearest", "constant"} {
			for i, m := range tfs {
				checkGrad(t, gradCase{name: "ImageProjectiveTransform" + mode + interp + string(rune('a'+i)), shapes: []ops.Shape{{2, 5, 6, 2}},
					build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
						tf := tr.Constant(ops.Shape{1, 8}, m)
						return ops.ImageProjectiveTransform(x[0], tf, mode, 0.5, interp)
					}})
			}
		}
	}
}

// TestImageProjectiveTransformValues: the identity is the identity; a
// whole shift reads the shifted pixel (the fill value outside in constant
// mode); a zoom of one factor equals SeededRandomZoom's (the same map,
// drawn); a row per image applies to its own image; k = 0 reads the fill
// value; bad transforms are refused by name.
func TestImageProjectiveTransformValues(t *testing.T) {
	s := ops.Shape{2, 4, 5, 3}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = float32(i%17) - 3
	}
	run := func(tf []float32, rows int, mode, interp string) []float32 {
		tr := ops.NewEagerTrace(false, 1)
		return ops.ImageProjectiveTransform(tr.Constant(s, x), tr.Constant(ops.Shape{rows, 8}, tf), mode, -9, interp).Float32s()
	}
	for _, interp := range []string{"nearest", "bilinear"} {
		if y := run([]float32{1, 0, 0, 0, 1, 0, 0, 0}, 1, "reflect", interp); !eq32(y, x) {
			t.Errorf("%s: identity changed the images", interp)
		}
		// Output (y, x) reads input (y - 1, x + 2).
		y := run([]float32{1, 0, 2, 0, 1, -1, 0, 0}, 1, "constant", interp)
		for b := range 2 {
			for r := range 4 {
				for col := range 5 {
					for c := range 3 {
						want := float32(-9)
						if r-1 >= 0 && col+2 < 5 {
							want = x[((b*4+r-1)*5+col+2)*3+c]
						}
						if got := y[((b*4+r)*5+col)*3+c]; got != want {
							t.Fatalf("%s shift: y[%d,%d,%d,%d] = %v, want %v", interp, b, r, col, c, got, want)
						}
					}
				}
			}
		}
		tr := ops.NewEagerTrace(true, 1)
		zoom := ops.SeededRandomZoom(tr.Constant(s, x), [2]float32{0.3, 0.3}, [2]float32{-0.2, -0.2}, false, "reflect", 0, interp, ops.NewSeedGenerator("z", 1)).Float32s()
		zy, zx := float32(1.3), float32(0.8)
		if y := run([]float32{zx, 0, 2 * (1 - zx), 0, zy, 1.5 * (1 - zy), 0, 0}, 1, "reflect", interp); !close32(y, zoom, 1e-5) {
			t.Errorf("%s: the zoom differs from SeededRandomZoom's", interp)
		}
	}
	// One row per image: the second image shifted, the first not.
	y := run([]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0}, 2, "constant", "nearest")
	if !eq32(y[:60], x[:60]) || y[60] != x[63] || y[60+12] != -9 {
		t.Errorf("per-image rows: %v", y[60:75])
	}
	// c1 = -1 makes k = 0 on row 1: the fill value there.
	y = run([]float32{1, 0, 0, 0, 1, 0, 0, -1}, 1, "reflect", "bilinear")
	for i := 15; i < 30; i++ {
		if y[i] != -9 {
			t.Fatalf("k = 0: y[%d] = %v, want the fill value", i, y[i])
		}
	}
	for _, bad := range []func(tr *ops.Trace){
		func(tr *ops.Trace) {
			ops.ImageProjectiveTransform(tr.Constant(s, x), tr.Constant(ops.Shape{3, 8}, make([]float32, 24)), "constant", 0, "nearest")
		},
		func(tr *ops.Trace) {
			ops.ImageProjectiveTransform(tr.Constant(s, x), tr.Constant(ops.Shape{1, 8}, make([]float32, 8)), "mirror", 0, "nearest")
		},
		func(tr *ops.Trace) {
			ops.ImageProjectiveTransform(tr.Constant(s, x), tr.Constant(ops.Shape{1, 8}, make([]float32, 8)), "constant", 0, "bicubic")
		},
	} {
		func() {
			defer func() {
				if e, ok := recover().(*ops.Error); !ok || e.Op != "ImageProjectiveTransform" {
					t.Errorf("bad arguments: recovered %v", e)
				}
			}()
			bad(ops.NewTrace(false, 0, 1))
		}()
	}
}

// TestComputeHomography: the transform maps each end corner to its start
// corner (the output pixel at an end corner reads the input at the start
// corner), for a perspective warp; equal points give the identity.
func TestComputeHomography(t *testing.T) {
	start := []float32{0, 0, 9, 0, 0, 7, 9, 7, 0, 0, 9, 0, 0, 7, 9, 7}
	end := []float32{0.5, -1, 10, 0.3, -0.7, 6.1, 8.2, 8, 0, 0, 9, 0, 0, 7, 9, 7}
	tr := ops.NewEagerTrace(false, 1)
	h := ops.ComputeHomography(tr.Constant(ops.Shape{2, 4, 2}, start), tr.Constant(ops.Shape{2, 4, 2}, end)).Float32s()
	for i := range 4 {
		m := h[:8]
		ex, ey := float64(end[2*i]), float64(end[2*i+1])
		k := float64(m[6])*ex + float64(m[7])*ey + 1
		gx := (float64(m[0])*ex + float64(m[1])*ey + float64(m[2])) / k
		gy := (float64(m[3])*ex + float64(m[4])*ey + float64(m[5])) / k
		if math.Abs(gx-float64(start[2*i])) > 1e-5 || math.Abs(gy-float64(start[2*i+1])) > 1e-5 {
			t.Errorf("corner %d: (%v, %v) maps to (%v, %v)", i, ex, ey, gx, gy)
		}
	}
	if !close32(h[8:], []float32{1, 0, 0, 0, 1, 0, 0, 0}, 1e-6) {
		t.Errorf("equal points: %v, want the identity", h[8:])
	}
}

func eq32(a, b []float32) bool { return close32(a, b, 0) }

func close32(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !(math.Abs(float64(a[i]-b[i])) <= tol) {
			return false
		}
	}
	return true
}
