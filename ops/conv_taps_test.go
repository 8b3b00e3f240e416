package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTapClassesMatchIm2col runs the forward and both gradients of
// convolutions that take the tap-class path, and again with it off, and
// compares (shapes of the ResNet seed's small feature maps and odd ones).
func TestTapClassesMatchIm2col(t *testing.T) {
	cases := []struct {
		n, h, w, cin, k, cout, stride int
	}{
		{64, 8, 8, 16, 3, 16, 1}, // the filter gradient in 4 parts
		{8, 2, 2, 16, 3, 24, 1},
		{6, 4, 4, 8, 3, 16, 1},
		{5, 4, 4, 8, 3, 16, 2},
		{4, 3, 5, 3, 3, 7, 1},
		{3, 3, 3, 4, 5, 6, 1},
		{2, 1, 1, 8, 3, 5, 1},
		{7, 5, 4, 17, 3, 33, 2},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			g := newGeom("t", Shape{c.n, c.h, c.w, c.cin}, c.k, c.k, [2]int{c.stride, c.stride}, [2]int{1, 1}, "same")
			if g.tapWaste() < tapClassMinWaste {
				t.Skipf("waste %.2f: plain im2col", g.tapWaste())
			}
			r := rand.New(rand.NewPCG(2, uint64(c.h*100+c.cin)))
			rnd := func(n int) []float32 {
				v := make([]float32, n)
				for i := range v {
					v[i] = r.Float32()*2 - 1
				}
				return v
			}
			x, w, dy := rnd(c.n*c.h*c.w*c.cin), rnd(c.k*c.k*c.cin*c.cout), rnd(g.rows()*c.cout)
			run := func(off bool) [3][]float32 {
				defer func(v bool) { noTapClasses = v }(noTapClasses)
				noTapClasses = off
				tr := NewTrace(true, 0, 1)
				xv := tr.Input("x", Shape{c.n, c.h, c.w, c.cin})
				wv := tr.Input("w", Shape{c.k, c.k, c.cin, c.cout})
				dv := tr.Input("dy", Shape{g.n, g.oh, g.ow, c.cout})
				y := Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{c.stride, c.stride}, Padding: "same"})
				op := y.n.Op().(*Op)
				if (op.name != "Conv2D") || (off != (newConvPlan(g, c.cout) == nil)) {
					t.Fatalf("plan selection wrong (off=%v)", off)
				}
				grads := op.grad([]Tensor{xv, wv}, y, dv)
				outs := [3][]float32{make([]float32, g.rows()*c.cout), make([]float32, len(x)), make([]float32, len(w))}
				fwd := func(t Tensor, out []float32, args ...[]float32) { t.n.Op().(*Op).Forward(out, args) }
				fwd(y, outs[0], x, w)
				// BackpropInput takes (w, dy[, y]); BackpropFilter (x, dy, y).
				inOp := grads[0].n.Op().(*Op)
				inArgs := [][]float32{w, dy}
				if len(inOp.ins) == 3 {
					inArgs = append(inArgs, outs[0])
				}
				fwd(grads[0], outs[1], inArgs...)
				fwd(grads[1], outs[2], x, dy, outs[0])
				return outs
			}
			a, b := run(false), run(true)
			for k, name := range []string{"y", "dx", "dw"} {
				for i := range a[k] {
					if d := math.Abs(float64(a[k][i] - b[k][i])); d > 1e-4*math.Max(1, math.Abs(float64(b[k][i]))) {
						t.Fatalf("%s[%d]: tap classes %v, im2col %v", name, i, a[k][i], b[k][i])
					}
				}
			}
		})
	}
}
