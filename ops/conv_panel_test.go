package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestConvLargePanelRunsBlocked: a float32 im2col convolution whose forward
// panel would exceed maxPanelFloats runs by blocks of images without
// keeping it (the DCGAN generator's 7x7 convolution over 128 channels kept
// 1.26 GB a call): its output and input gradient are bitwise those of the
// kept panel, its filter gradient equal to float32 summation error, and the
// forward pass with both gradients allocate less than half the panel (the
// blocks' scratch: a block of images a core, in the forward pass and in
// the filter gradient).
func TestConvLargePanelRunsBlocked(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(v int) { maxPanelFloats = v }(maxPanelFloats)
	for _, c := range []convCase{
		{16, 28, 28, 8, 7, 1, 1, "same"},   // the DCGAN generator's last layer, fewer channels
		{6, 13, 13, 32, 3, 64, 1, "valid"}, // the seed CNN's second convolution
		{6, 9, 9, 3, 7, 16, 2, "same"},     // strided, the ResNet stem's kind
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			g := c.geom()
			r := rand.New(rand.NewPCG(5, uint64(c.n*1000+c.h*10+c.cin)))
			rnd := func(n int) []float32 {
				v := make([]float32, n)
				for i := range v {
					v[i] = float32(r.NormFloat64())
				}
				return v
			}
			x, w, dy := rnd(c.n*c.h*c.w*c.cin), rnd(c.k*c.k*c.cin*c.cout), rnd(g.rows()*c.cout)
			panelBytes := uint64(g.rows()*g.patch()) * 4
			run := func(limit int) ([3][]float32, uint64) {
				maxPanelFloats = limit
				runConvOps(t, c, "", x, w, dy) // warm: the first call may size pools
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				out := runConvOps(t, c, "", x, w, dy)
				runtime.ReadMemStats(&m1)
				return out, m1.TotalAlloc - m0.TotalAlloc
			}
			kept, keptAlloc := run(math.MaxInt)
			blocked, blockedAlloc := run(g.rows()*g.patch() - 1)
			t.Logf("panel %d KiB: kept allocates %d KiB, blocked %d KiB", panelBytes>>10, keptAlloc>>10, blockedAlloc>>10)
			if keptAlloc < panelBytes {
				t.Errorf("with the panel kept, %d bytes allocated, less than the panel's %d: the test measures nothing", keptAlloc, panelBytes)
			}
			if c.n*c.h > 200 && blockedAlloc > panelBytes/2 {
				t.Errorf("blocked: %d bytes allocated, want under half the panel's %d", blockedAlloc, panelBytes)
			}
			for k, name := range []string{"y", "dx"} {
				for i := range kept[k] {
					if math.Float32bits(blocked[k][i]) != math.Float32bits(kept[k][i]) {
						t.Fatalf("%s[%d] = %v blocked, %v with the panel kept", name, i, blocked[k][i], kept[k][i])
					}
				}
			}
			var mag float64
			for _, v := range kept[2] {
				mag = max(mag, math.Abs(float64(v)))
			}
			for i := range kept[2] {
				if d := math.Abs(float64(blocked[2][i] - kept[2][i])); d > 1e-5*mag {
					t.Fatalf("dw[%d] = %v blocked, %v with the panel kept (largest |dw| %v)", i, blocked[2][i], kept[2][i], mag)
				}
			}
		})
	}
}
