package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// directConv3x3 returns the forward op of Conv2D (the direct path, tap
// classes or im2col as Conv2D chooses) for a stride-1 3x3 convolution.
func directConv3x3(n, h, w, cin, cout int, padding string) (*Op, Shape) {
	tr := NewTrace(true, 0, 1)
	xv := tr.Input("x", Shape{n, h, w, cin})
	wv := tr.Input("w", Shape{3, 3, cin, cout})
	y := Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{1, 1}, Padding: padding})
	return y.n.Op().(*Op), y.Shape()
}

// directConv3x3Input returns Conv2D's input-gradient op for a stride-1
// 'same' 3x3 convolution and its arguments' order: w, dy and, when it has
// three inputs, the forward output y.
func directConv3x3Input(n, h, w, cin, cout int) (op *Op, needsY bool) {
	tr := NewTrace(true, 0, 1)
	xv := tr.Input("x", Shape{n, h, w, cin})
	wv := tr.Input("w", Shape{3, 3, cin, cout})
	y := Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"})
	dv := tr.Input("dy", y.Shape())
	grads := y.n.Op().(*Op).grad([]Tensor{xv, wv}, y, dv)
	op = grads[0].n.Op().(*Op)
	return op, len(op.ins) == 3
}

// flipKernel returns w (3 x 3 x cin x cout) turned by 180 degrees with its
// channels swapped (3 x 3 x cout x ci): the kernel of the input gradient.
func flipKernel(w []float32, cin, cout int) []float32 {
	out := make([]float32, len(w))
	for k := range 9 {
		for ci := range cin {
			for co := range cout {
				out[((8-k)*cout+co)*cin+ci] = w[(k*cin+ci)*cout+co]
			}
		}
	}
	return out
}

// refConv3x3 is the stride-1 3x3 convolution in float64, with the sum of
// |x||w| of every output (the scale of its rounding error).
func refConv3x3(x, w []float32, n, h, wd, cin, cout int, padding string) (y, absSum []float64) {
	oh, ow, pad := h, wd, 1
	if padding == "valid" {
		oh, ow, pad = h-2, wd-2, 0
	}
	y, absSum = make([]float64, n*oh*ow*cout), make([]float64, n*oh*ow*cout)
	for b := range n {
		for oy := range oh {
			for ox := range ow {
				o := ((b*oh+oy)*ow + ox) * cout
				for ky := range 3 {
					iy := oy + ky - pad
					if iy < 0 || iy >= h {
						continue
					}
					for kx := range 3 {
						ix := ox + kx - pad
						if ix < 0 || ix >= wd {
							continue
						}
						xr := x[((b*h+iy)*wd+ix)*cin:][:cin]
						for ci, xv := range xr {
							wr := w[((ky*3+kx)*cin+ci)*cout:][:cout]
							for co, wv := range wr {
								p := float64(xv) * float64(wv)
								y[o+co] += p
								absSum[o+co] += math.Abs(p)
							}
						}
					}
				}
			}
		}
	}
	return y, absSum
}

// convErr is the largest absolute error of got against ref and the
// largest error relative to the sum of |x||w| of its output.
func convErr(got []float32, ref, absSum []float64) (abs, rel float64) {
	for i, r := range ref {
		e := math.Abs(float64(got[i]) - r)
		abs = max(abs, e)
		if absSum[i] > 0 {
			rel = max(rel, e/absSum[i])
		}
	}
	return abs, rel
}

// winogradData fills x and w: "normal" is N(0,1) for both; "activations"
// is a ReLU of N(0,1) (a batch-normalized layer's output) and He-scaled
// kernels, N(0, 2/(9 cin)).
func winogradData(r *rand.Rand, dist string, x, w []float32, cin int) {
	for i := range x {
		x[i] = float32(r.NormFloat64())
		if dist == "activations" {
			x[i] = max(x[i], 0)
		}
	}
	ws := 1.0
	if dist == "activations" {
		ws = math.Sqrt(2 / float64(9*cin))
	}
	for i := range w {
		w[i] = float32(r.NormFloat64() * ws)
	}
}

// winogradBounds bound the error relative to Σ|x||w| per output.
// Measured (TestWinogradConv3x3 -v): F(2,3) at most 2.7e-7, F(4,3) at
// most 3.9e-6, Conv2D's direct path 2.2e-7; the bounds leave about 3x.
var winogradBounds = map[*winogradKind]float64{winogradF23: 1e-6, winogradF43: 1.2e-5}

// TestWinogradConv3x3 checks both Winograd algorithms against the float64
// convolution and against Conv2D on float32, and bounds their error
// relative to Σ|x||w| per output (winogradBounds). The last rows are the
// layers of BenchmarkConvWinograd at batch 4.
func TestWinogradConv3x3(t *testing.T) {
	shapes := []struct {
		n, h, w, cin, cout int
		pad                string
	}{
		{2, 5, 7, 3, 4, "same"},
		{1, 2, 2, 8, 5, "same"},
		{3, 1, 3, 4, 3, "same"},
		{2, 8, 8, 16, 8, "same"},
		{2, 9, 6, 5, 7, "valid"},
		{1, 3, 3, 2, 2, "valid"},
		{2, 4, 4, 64, 32, "same"},
		{1, 13, 13, 32, 64, "valid"},
		{4, 2, 2, 128, 64, "same"},
		{4, 8, 8, 64, 64, "same"},
		{4, 4, 4, 128, 128, "same"},
		{4, 2, 2, 256, 256, "same"},
		{4, 13, 13, 32, 64, "valid"},
	}
	r := rand.New(rand.NewPCG(19, 3))
	worst := map[string]float64{}
	for _, c := range shapes {
		op, ys := directConv3x3(c.n, c.h, c.w, c.cin, c.cout, c.pad)
		for _, dist := range []string{"normal", "activations"} {
			x, w := make([]float32, c.n*c.h*c.w*c.cin), make([]float32, 9*c.cin*c.cout)
			winogradData(r, dist, x, w, c.cin)
			ref, absSum := refConv3x3(x, w, c.n, c.h, c.w, c.cin, c.cout, c.pad)
			direct := make([]float32, ys.Size())
			op.Forward(direct, [][]float32{x, w})
			dAbs, dRel := convErr(direct, ref, absSum)
			if dRel > 1e-6 {
				t.Fatalf("%v %s: Conv2D itself is off the float64 reference (rel %.2g)", c, dist, dRel)
			}
			worst["direct/"+dist] = max(worst["direct/"+dist], dRel)
			for _, f := range []*winogradKind{winogradF23, winogradF43} {
				y := make([]float32, ys.Size()+1)
				y[len(y)-1] = 42 // guard
				var s winogradScratch
				winogradConv3x3(f, &s, y[:ys.Size()], x, w, c.n, c.h, c.w, c.cin, c.cout, c.pad)
				if y[len(y)-1] != 42 {
					t.Fatalf("%s %v: wrote past y", f.name, c)
				}
				abs, rel := convErr(y, ref, absSum)
				var vsDirect float64
				for i := range direct {
					vsDirect = max(vsDirect, math.Abs(float64(y[i]-direct[i])))
				}
				t.Logf("%s %dx%dx%dx%d->%d %s %s: max abs err %.2g (direct %.2g), max rel err %.2g (direct %.2g), max |winograd-direct| %.2g",
					f.name, c.n, c.h, c.w, c.cin, c.cout, c.pad, dist, abs, dAbs, rel, dRel, vsDirect)
				if rel > winogradBounds[f] || math.IsNaN(rel) {
					t.Errorf("%s %v %s: max relative error %.3g > %.3g", f.name, c, dist, rel, winogradBounds[f])
				}
				worst[f.name+"/"+dist] = max(worst[f.name+"/"+dist], rel)
			}
		}
	}
	t.Logf("worst relative errors: %v", worst)
}

// TestWinogradBlocks checks blocks of one tile and blocks that do not
// divide the tiles, transform chunks of every size and the GEMM
// transforms against the float64 convolution (not bitwise against
// one block: the vec kernels round their tails apart from their bodies,
// and the GEMM's rows split otherwise).
func TestWinogradBlocks(t *testing.T) {
	defer func(v, c int, g bool) {
		winogradBlockFloats, winogradChunkFloats, winogradGEMMTransforms = v, c, g
	}(winogradBlockFloats, winogradChunkFloats, winogradGEMMTransforms)
	const n, h, w, cin, cout = 3, 7, 5, 6, 5
	r := rand.New(rand.NewPCG(1, 2))
	x, k := make([]float32, n*h*w*cin), make([]float32, 9*cin*cout)
	winogradData(r, "normal", x, k, cin)
	ref, absSum := refConv3x3(x, k, n, h, w, cin, cout, "same")
	for _, f := range []*winogradKind{winogradF23, winogradF43} {
		for _, gt := range []bool{false, true} {
			winogradGEMMTransforms = gt
			for _, bf := range []int{1 << 20, 1, 7 * cin, 5 * cout} {
				for _, ch := range []int{1 << 20, 1, 17} {
					winogradBlockFloats, winogradChunkFloats = bf, ch
					y := make([]float32, n*h*w*cout)
					winogradConv3x3(f, nil, y, x, k, n, h, w, cin, cout, "same")
					if _, rel := convErr(y, ref, absSum); rel > winogradBounds[f] || math.IsNaN(rel) {
						t.Errorf("%s, GEMM transforms %v, blocks of %d floats, chunks of %d: max relative error %.3g > %.3g",
							f.name, gt, bf, ch, rel, winogradBounds[f])
					}
				}
			}
		}
	}
}

// TestWinogradConv3x3Input checks the input gradient against the float64
// convolution of dy with the turned kernel and against Conv2D's gradient.
func TestWinogradConv3x3Input(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 4))
	for _, c := range []struct{ n, h, w, cin, cout int }{
		{2, 5, 7, 3, 4}, {1, 2, 2, 8, 5}, {2, 8, 8, 16, 24}, {4, 4, 4, 64, 32},
	} {
		op, needsY := directConv3x3Input(c.n, c.h, c.w, c.cin, c.cout)
		dy, w := make([]float32, c.n*c.h*c.w*c.cout), make([]float32, 9*c.cin*c.cout)
		winogradData(r, "normal", dy, w, c.cout)
		ref, absSum := refConv3x3(dy, flipKernel(w, c.cin, c.cout), c.n, c.h, c.w, c.cout, c.cin, "same")
		direct := make([]float32, c.n*c.h*c.w*c.cin)
		args := [][]float32{w, dy}
		if needsY {
			args = append(args, make([]float32, len(dy)))
		}
		op.Forward(direct, args)
		if _, rel := convErr(direct, ref, absSum); rel > 1e-6 {
			t.Fatalf("%v: Conv2D's input gradient is off the reference (rel %.2g)", c, rel)
		}
		for _, f := range []*winogradKind{winogradF23, winogradF43} {
			dx := make([]float32, len(direct))
			winogradConv3x3Input(f, nil, dx, dy, w, c.n, c.h, c.w, c.cin, c.cout)
			abs, rel := convErr(dx, ref, absSum)
			t.Logf("%s input gradient %v: max abs err %.2g, max rel err %.2g", f.name, c, abs, rel)
			if rel > winogradBounds[f] || math.IsNaN(rel) {
				t.Errorf("%s input gradient %v: max relative error %.3g > %.3g", f.name, c, rel, winogradBounds[f])
			}
		}
	}
}

// winogradLayers are the 3x3 stride-1 convolutions of the seed ResNet
// (examples/internal/models ResNetSeed: 4 on 8x8x64, 3 on 4x4x128, 3 on
// 2x2x256 per forward pass) and the seed CNN's second convolution
// (13x13x32 -> 64, valid), at batch 64.
var winogradLayers = []struct {
	h, w, cin, cout int
	pad             string
	count           int
}{
	{8, 8, 64, 64, "same", 4},
	{4, 4, 128, 128, "same", 3},
	{2, 2, 256, 256, "same", 3},
	{13, 13, 32, 64, "valid", 1},
}

// BenchmarkConvWinograd times Conv2D's forward op against both Winograd
// algorithms (kernel transform included, and apart) on the layers above.
// GFLOP/s counts the direct convolution's 2·N·OH·OW·9·cin·cout.
func BenchmarkConvWinograd(b *testing.B) {
	const n = 64
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range winogradLayers {
		op, ys := directConv3x3(n, c.h, c.w, c.cin, c.cout, c.pad)
		x, w := make([]float32, n*c.h*c.w*c.cin), make([]float32, 9*c.cin*c.cout)
		winogradData(r, "activations", x, w, c.cin)
		y := make([]float32, ys.Size())
		flops := 2 * float64(ys.Size()) * 9 * float64(c.cin)
		gf := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		name := fmt.Sprintf("%dx%dx%d_%d_%s", c.h, c.w, c.cin, c.cout, c.pad)
		b.Run(name+"/direct", func(b *testing.B) {
			for b.Loop() {
				op.Forward(y, [][]float32{x, w})
			}
			gf(b)
		})
		for _, f := range []*winogradKind{winogradF23, winogradF43} {
			var s winogradScratch
			s.u = make([]float32, f.a*f.a*c.cin*c.cout)
			winogradFilter(f, s.u, w, c.cin, c.cout, false)
			tag := fmt.Sprintf("F%d", f.m)
			b.Run(name+"/"+tag, func(b *testing.B) {
				for b.Loop() {
					winogradConv3x3(f, &s, y, x, w, n, c.h, c.w, c.cin, c.cout, c.pad)
				}
				gf(b)
			})
			b.Run(name+"/"+tag+"_cachedU", func(b *testing.B) {
				for b.Loop() {
					winogradConvU(f, &s, y, x, s.u, false, n, c.h, c.w, c.cin, c.cout, c.pad)
				}
				gf(b)
			})
			b.Run(name+"/"+tag+"_filter", func(b *testing.B) {
				for b.Loop() {
					winogradFilter(f, s.u, w, c.cin, c.cout, false)
				}
			})
		}
		if c.pad != "same" {
			continue
		}
		// The input gradient: Conv2D's against Winograd's, same count.
		dop, needsY := directConv3x3Input(n, c.h, c.w, c.cin, c.cout)
		dy, dx := make([]float32, ys.Size()), make([]float32, len(x))
		winogradData(r, "normal", dy, nil, c.cout)
		args := [][]float32{w, dy}
		if needsY {
			args = append(args, y)
		}
		b.Run(name+"/dx_direct", func(b *testing.B) {
			for b.Loop() {
				dop.Forward(dx, args)
			}
			gf(b)
		})
		for _, f := range []*winogradKind{winogradF23, winogradF43} {
			var s winogradScratch
			b.Run(fmt.Sprintf("%s/dx_F%d", name, f.m), func(b *testing.B) {
				for b.Loop() {
					winogradConv3x3Input(f, &s, dx, dy, w, n, c.h, c.w, c.cin, c.cout)
				}
				gf(b)
			})
		}
	}
}

// BenchmarkConvWinogradParts splits winogradConvU (kernel transformed
// once) into its phases, for both transform variants, and reports each
// phase's milliseconds per call.
func BenchmarkConvWinogradParts(b *testing.B) {
	const n = 64
	r := rand.New(rand.NewPCG(1, 1))
	defer func(v bool) { winogradGEMMTransforms = v; winogradPhases = nil }(winogradGEMMTransforms)
	for _, c := range winogradLayers {
		ys := Shape{n, c.h, c.w, c.cout}
		if c.pad == "valid" {
			ys = Shape{n, c.h - 2, c.w - 2, c.cout}
		}
		x, w := make([]float32, n*c.h*c.w*c.cin), make([]float32, 9*c.cin*c.cout)
		winogradData(r, "activations", x, w, c.cin)
		y := make([]float32, ys.Size())
		for _, f := range []*winogradKind{winogradF23, winogradF43} {
			var s winogradScratch
			s.u = make([]float32, f.a*f.a*c.cin*c.cout)
			winogradFilter(f, s.u, w, c.cin, c.cout, false)
			for _, gt := range []bool{false, true} {
				name := fmt.Sprintf("%dx%dx%d_%d_%s/F%d/gemmTransforms=%v", c.h, c.w, c.cin, c.cout, c.pad, f.m, gt)
				b.Run(name, func(b *testing.B) {
					winogradGEMMTransforms = gt
					var ph [5]time.Duration
					winogradPhases = &ph
					for b.Loop() {
						winogradConvU(f, &s, y, x, s.u, false, n, c.h, c.w, c.cin, c.cout, c.pad)
					}
					winogradPhases = nil
					for i, nm := range []string{"gather", "in", "gemm", "out", "scatter"} {
						b.ReportMetric(ph[i].Seconds()*1e3/float64(b.N), nm+"-ms")
					}
				})
			}
		}
	}
}
