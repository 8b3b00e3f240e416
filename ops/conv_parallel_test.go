package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// convCase is a convolution of the tests: n images of h x w x cin, a k x k
// kernel to cout channels.
type convCase struct {
	n, h, w, cin, k, cout, stride int
	padding                       string
}

func (c convCase) geom() convGeom {
	return newGeom("t", Shape{c.n, c.h, c.w, c.cin}, c.k, c.k, [2]int{c.stride, c.stride}, [2]int{1, 1}, c.padding)
}

// runConvOps runs Conv2D's forward pass and both gradients on x, w, dy in
// the given GEMM precision and returns y, dx, dw.
func runConvOps(t *testing.T, c convCase, precision string, x, w, dy []float32) [3][]float32 {
	t.Helper()
	g := c.geom()
	tr := NewTrace(true, 0, 1)
	xv := tr.Input("x", Shape{c.n, c.h, c.w, c.cin})
	wv := tr.Input("w", Shape{c.k, c.k, c.cin, c.cout})
	dv := tr.Input("dy", Shape{g.n, g.oh, g.ow, c.cout})
	y := Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{c.stride, c.stride}, Padding: c.padding, Precision: precision})
	op := y.n.Op().(*Op)
	grads := op.grad([]Tensor{xv, wv}, y, dv)
	outs := [3][]float32{make([]float32, g.rows()*c.cout), make([]float32, len(x)), make([]float32, len(w))}
	fwd := func(t Tensor, out []float32, args ...[]float32) { t.n.Op().(*Op).Forward(out, args) }
	fwd(y, outs[0], x, w)
	// BackpropInput takes (w, dy[, y]); BackpropFilter (x, dy, y).
	inArgs := [][]float32{w, dy}
	if len(grads[0].n.Op().(*Op).ins) == 3 {
		inArgs = append(inArgs, outs[0])
	}
	fwd(grads[0], outs[1], inArgs...)
	fwd(grads[1], outs[2], x, dy, outs[0])
	return outs
}

// TestConvSameOnAnyCPUCount checks that a convolution's forward pass and
// gradients, which split the batch over the cores (imageSplit, and
// filterParts for the tap classes' filter gradient), give bitwise the
// same results on 1 to 4 CPUs, on float32 and bfloat16 GEMMs, for tap
// classes and im2col, with batches that split unevenly and one image.
func TestConvSameOnAnyCPUCount(t *testing.T) {
	cases := []convCase{
		{64, 8, 8, 16, 3, 16, 1, "same"}, // tap classes, 4 filter parts
		{64, 2, 2, 16, 3, 24, 1, "same"}, // classes of one row per image, 2 filter parts
		{9, 8, 8, 16, 3, 24, 1, "same"},
		{7, 4, 4, 8, 3, 16, 2, "same"},
		{5, 2, 2, 32, 3, 40, 1, "same"},
		{1, 4, 4, 8, 3, 16, 1, "same"},
		{6, 13, 13, 32, 3, 64, 1, "valid"}, // im2col, the seed CNN's second convolution
		{5, 14, 14, 1, 3, 8, 1, "valid"},   // a one-channel stem
		{6, 9, 9, 3, 7, 16, 2, "same"},     // the ResNet stem's kind
		{6, 6, 6, 24, 1, 40, 1, "same"},    // 1x1: the GEMM on x itself
		{5, 7, 7, 40, 1, 48, 2, "same"},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range cases {
		for _, precision := range []string{"", PrecisionBFloat16} {
			t.Run(fmt.Sprintf("%+v/%q", c, precision), func(t *testing.T) {
				g := c.geom()
				r := rand.New(rand.NewPCG(3, uint64(c.n*1000+c.h*10+c.cin)))
				rnd := func(n int) []float32 {
					v := make([]float32, n)
					for i := range v {
						v[i] = float32(r.NormFloat64())
					}
					return v
				}
				x, w, dy := rnd(c.n*c.h*c.w*c.cin), rnd(c.k*c.k*c.cin*c.cout), rnd(g.rows()*c.cout)
				runtime.GOMAXPROCS(1)
				want := runConvOps(t, c, precision, x, w, dy)
				for _, p := range []int{2, 3, 4} {
					runtime.GOMAXPROCS(p)
					got := runConvOps(t, c, precision, x, w, dy)
					for k, name := range []string{"y", "dx", "dw"} {
						for i := range got[k] {
							if math.Float32bits(got[k][i]) != math.Float32bits(want[k][i]) {
								t.Fatalf("%d CPUs: %s[%d] = %v, on one CPU %v", p, name, i, got[k][i], want[k][i])
							}
						}
					}
				}
			})
		}
	}
}

// TestConvFilterPartsMatchFloat64 checks the filter gradient summed in
// parts of the batch (sumFilterParts) against a float64 sum over the
// whole batch, to float32 summation error, for tap classes, im2col and
// the blocked bfloat16 im2col (on bfloat16-exact operands, whose products
// are exact).
func TestConvFilterPartsMatchFloat64(t *testing.T) {
	for _, c := range []convCase{
		{64, 8, 8, 16, 3, 16, 1, "same"},
		{64, 2, 2, 16, 3, 24, 1, "same"},
		{40, 4, 4, 8, 3, 16, 2, "same"},
		{10, 28, 28, 1, 3, 8, 1, "valid"},
		{10, 13, 13, 32, 3, 16, 1, "valid"},
		{12, 12, 12, 16, 3, 40, 1, "same"},
	} {
		g := c.geom()
		if parts := filterParts(c.n, g.rows()); parts < 2 {
			t.Fatalf("%+v: %d filter parts, the test wants several", c, parts)
		}
		for _, precision := range []string{"", PrecisionBFloat16} {
			r := rand.New(rand.NewPCG(4, uint64(c.n*1000+c.h)))
			rnd := func(n int) []float32 {
				v := make([]float32, n)
				for i := range v {
					v[i] = float32(r.NormFloat64())
				}
				roundBFloat16Slice(v, v)
				return v
			}
			x, w, dy := rnd(c.n*c.h*c.w*c.cin), rnd(c.k*c.k*c.cin*c.cout), rnd(g.rows()*c.cout)
			got := runConvOps(t, c, precision, x, w, dy)[2]
			want, mag := make([]float64, len(w)), make([]float64, len(w))
			for b := 0; b < g.n; b++ {
				for oy := 0; oy < g.oh; oy++ {
					for ox := 0; ox < g.ow; ox++ {
						d := dy[((b*g.oh+oy)*g.ow+ox)*c.cout:][:c.cout]
						for ky := 0; ky < c.k; ky++ {
							for kx := 0; kx < c.k; kx++ {
								iy, ix := oy*g.sh-g.pt+ky, ox*g.sw-g.pl+kx
								if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
									continue
								}
								for ci := 0; ci < c.cin; ci++ {
									xv := float64(x[((b*g.h+iy)*g.w+ix)*c.cin+ci])
									for co, dv := range d {
										i := ((ky*c.k+kx)*c.cin+ci)*c.cout + co
										want[i] += xv * float64(dv)
										mag[i] += math.Abs(xv * float64(dv))
									}
								}
							}
						}
					}
				}
			}
			for i := range want {
				if e := math.Abs(float64(got[i]) - want[i]); e > 1e-6*mag[i]+1e-30 {
					t.Fatalf("%+v %q: dw[%d] = %v, float64 %v (error %.3g of the sum of |terms| %.3g)", c, precision, i, got[i], want[i], e, mag[i])
				}
			}
		}
	}
}
