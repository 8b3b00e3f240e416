package vec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPoolPixelsMatchLoops: the row-wise running maxima and the select
// of the pooling gradient equal their per-pixel Go loops, ties (which
// keep the earlier argument) and NaNs (which never win) included.
func TestPoolPixelsMatchLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []int{16, 32, 64, 8} {
		const count, xs = 5, 80
		x := make([]float32, (count-1)*xs+c+xs)
		for i := range x {
			x[i] = float32(r.IntN(5)) // many ties
			if r.IntN(20) == 0 {
				x[i] = float32(math.NaN())
			}
		}
		ov1, am1 := make([]float32, count*c), make([]int32, count*c)
		SetArgPixels(ov1, am1, x, 7, c, count, xs)
		MaxArgPixels(ov1, am1, x[c:], 7+c, c, count, xs)
		MaxArgPixels(ov1, am1, x[xs/2:], 7+xs/2, c, count, xs)
		// the scalar loops
		ov2, am2 := make([]float32, count*c), make([]int32, count*c)
		for i := 0; i < count; i++ {
			for j := 0; j < c; j++ {
				ov2[i*c+j], am2[i*c+j] = x[i*xs+j], int32(7+i*xs+j)
				for _, off := range []int{c, xs / 2} {
					if v := x[off+i*xs+j]; v > ov2[i*c+j] {
						ov2[i*c+j], am2[i*c+j] = v, int32(7+off+i*xs+j)
					}
				}
			}
		}
		if !slices.Equal(am1, am2) {
			t.Fatalf("c=%d: arguments %v, loops %v", c, am1, am2)
		}
		for i := range ov1 {
			if math.Float32bits(ov1[i]) != math.Float32bits(ov2[i]) {
				t.Fatalf("c=%d: maxima differ at %d: %v, %v", c, i, ov1[i], ov2[i])
			}
		}
		// the select: windows of 2 taps (offsets 0 and c) every xs elements
		dy := make([]float32, count*c)
		for i := range dy {
			dy[i] = float32(i + 1)
		}
		o1, o2 := make([]float32, len(x)+7), make([]float32, len(x)+7)
		for i := range o1 {
			o1[i], o2[i] = -1, -1 // written where a window is, kept elsewhere
		}
		ScatterPixels(o1, dy, am1, 7, c, count, xs, []int{0, c})
		for i := 0; i < count; i++ {
			for _, off := range []int{0, c} {
				for j := 0; j < c; j++ {
					e := 7 + i*xs + off + j
					o2[e] = 0
					if int(am1[i*c+j]) == e {
						o2[e] = dy[i*c+j]
					}
				}
			}
		}
		if !slices.Equal(o1, o2) {
			t.Fatalf("c=%d: select differs from its loop", c)
		}
		nz := 0
		for _, v := range o1 {
			if v > 0 {
				nz++
			}
		}
		if nz == 0 {
			t.Fatalf("c=%d: no gradient selected", c)
		}
	}
}
