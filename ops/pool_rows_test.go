package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxPoolMatchesLoops: max pooling by taps over whole output rows
// (vec.SetArgPixels, MaxArgPixels) and its gradient selected tap by tap
// where windows do not overlap (vec.ScatterPixels) equal the plain loops
// bit for bit: first maximum in (ky, kx) order on ties, NaNs never
// winning, the gradient summed where windows overlap, zeros outside the
// windows. Channel counts take the assembly (16k) and the Go loops.
func TestMaxPoolMatchesLoops(t *testing.T) {
	cases := []struct {
		h, w, c, k, s int
		padding       string
	}{
		{26, 26, 32, 2, 2, "valid"}, // the seed CNN's first pooling: windows tile the input
		{11, 11, 64, 2, 2, "valid"}, // its second: the last row and column in no window
		{16, 16, 16, 3, 2, "same"},  // the ResNet seed's: overlapping windows
		{7, 7, 32, 2, 2, "same"},    // windows hanging over the padding
		{9, 10, 16, 3, 3, "valid"},
		{8, 8, 5, 2, 2, "valid"}, // Go loops
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, uint64(c.h*100+c.c)))
			const n = 3
			xs := Shape{n, c.h, c.w, c.c}
			x := make([]float32, xs.Size())
			for i := range x {
				x[i] = float32(r.IntN(4)) // ties
				if r.IntN(50) == 0 {
					x[i] = float32(math.NaN())
				}
			}
			attrs := Pool2DAttrs{Pool: [2]int{c.k, c.k}, Strides: [2]int{c.s, c.s}, Padding: c.padding}
			tr := NewTrace(true, 0, 1)
			xv := tr.Input("x", xs)
			y := MaxPool2D(xv, attrs)
			dv := tr.Input("dy", y.Shape())
			op := y.n.Op().(*Op)
			gOp := op.grad([]Tensor{xv}, y, dv)[0].n.Op().(*Op)
			yb := make([]float32, y.Shape().Size())
			op.Forward(yb, [][]float32{x})
			dy := make([]float32, len(yb))
			for i := range dy {
				dy[i] = float32(i%7 + 1)
			}
			dx := make([]float32, len(x))
			for i := range dx {
				dx[i] = 99 // every element must be written
			}
			gOp.Forward(dx, [][]float32{dy, yb})

			// the loops
			g := newGeom("t", xs, c.k, c.k, [2]int{c.s, c.s}, [2]int{1, 1}, c.padding)
			wantY, wantDx := make([]float32, len(yb)), make([]float32, len(x))
			for b := 0; b < n; b++ {
				for oy := 0; oy < g.oh; oy++ {
					for ox := 0; ox < g.ow; ox++ {
						for ch := 0; ch < g.c; ch++ {
							best, arg := float32(math.Inf(-1)), -1
							for ky := 0; ky < g.kh; ky++ {
								for kx := 0; kx < g.kw; kx++ {
									iy, ix := oy*g.sh-g.pt+ky, ox*g.sw-g.pl+kx
									if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
										continue
									}
									i := ((b*g.h+iy)*g.w+ix)*g.c + ch
									if arg < 0 || x[i] > best {
										best, arg = x[i], i
									}
								}
							}
							o := ((b*g.oh+oy)*g.ow+ox)*g.c + ch
							wantY[o] = best
							wantDx[arg] += dy[o]
						}
					}
				}
			}
			for i := range wantY {
				if math.Float32bits(yb[i]) != math.Float32bits(wantY[i]) {
					t.Fatalf("y[%d] = %v, loops %v", i, yb[i], wantY[i])
				}
			}
			for i := range wantDx {
				if dx[i] != wantDx[i] {
					t.Fatalf("dx[%d] = %v, loops %v", i, dx[i], wantDx[i])
				}
			}
		})
	}
}
