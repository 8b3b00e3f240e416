package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gokeras/gokeras/internal/kernels"
	"testing"
)

// roundedCopy is v with every element rounded to bfloat16.
func roundedCopy(v []float32) []float32 {
	r := make([]float32, len(v))
	roundBFloat16Slice(r, v)
	return r
}

func absCopy(v []float32) []float32 {
	r := make([]float32, len(v))
	for i, x := range v {
		r[i] = float32(math.Abs(float64(x)))
	}
	return r
}

// convRun runs Conv2D and both its gradients at precision prec on x, w,
// dy, with the tap-class path on or off, and returns y, dx, dw and the
// precision the three ops carry.
func convRun(t *testing.T, xs, ws Shape, stride int, padding, prec string, taps bool, x, w, dy []float32) ([3][]float32, [3]gemmMode) {
	t.Helper()
	defer func(v bool) { noTapClasses = v }(noTapClasses)
	noTapClasses = !taps
	tr := NewTrace(true, 0, 1)
	xv, wv := tr.Input("x", xs), tr.Input("w", ws)
	y := Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{stride, stride}, Padding: padding, Precision: prec})
	dv := tr.Input("dy", y.Shape())
	op := y.n.Op().(*Op)
	grads := op.grad([]Tensor{xv, wv}, y, dv)
	outs := [3][]float32{make([]float32, y.Shape().Size()), make([]float32, len(x)), make([]float32, len(w))}
	op.Forward(outs[0], [][]float32{x, w})
	inOp, fOp := grads[0].n.Op().(*Op), grads[1].n.Op().(*Op)
	inArgs := [][]float32{w, dy}
	if len(inOp.ins) == 3 {
		inArgs = append(inArgs, outs[0])
	}
	inOp.Forward(outs[1], inArgs)
	fOp.Forward(outs[2], [][]float32{x, dy, outs[0]})
	var modes [3]gemmMode
	for i, o := range []*Op{op, inOp, fOp} {
		modes[i] = modeOfOp(t, o)
	}
	return outs, modes
}

// modeOfOp reads the GEMM precision an op was made with from its
// attributes (Conv2DAttrs, the printed attributes of its gradients, or
// matMulAttrs).
func modeOfOp(t *testing.T, o *Op) gemmMode {
	t.Helper()
	switch a := o.attrs.(type) {
	case Conv2DAttrs:
		return modeOf(o.name, a.Precision)
	case matMulAttrs:
		return modeOf(o.name, a.Precision)
	case string:
		return gemmMode{bf16: strings.Contains(a, "Precision:"+PrecisionBFloat16)}
	}
	t.Fatalf("%s: attributes %T", o.name, o.attrs)
	return gemmMode{}
}

// checkSummationOrder fails unless got equals ref within float32
// summation-order error: |got-ref| <= 2·k·2^-24·abs (abs is the same
// computation on the absolute values, Σ|terms|), and returns the largest
// ratio |got-ref| / bound seen.
func checkSummationOrder(t *testing.T, name string, k int, got, ref, abs []float32) float64 {
	t.Helper()
	worst := 0.0
	for i := range ref {
		bound := 2*float64(k)*math.Ldexp(1, -24)*float64(abs[i]) + 1e-30
		d := math.Abs(float64(got[i]) - float64(ref[i]))
		if d > bound {
			t.Fatalf("%s[%d]: bfloat16 GEMM %v, float32 GEMM on rounded inputs %v: differ by %g > %g", name, i, got[i], ref[i], d, bound)
		}
		worst = max(worst, d/bound)
	}
	return worst
}

// TestConvBFloat16GEMM runs Conv2D's forward, input and filter gradients
// at bfloat16 precision (im2col and tap-class paths) on bfloat16 inputs,
// as a mixed_bfloat16 layer gives them, and compares them with float32
// precision: equal within float32 summation-order error. The shapes take
// both kernels (bf16Faster); the float32 results on unrounded inputs must
// be outside the bound somewhere (the bound can tell a wrong operand).
func TestConvBFloat16GEMM(t *testing.T) {
	t.Logf("bfloat16 GEMM kernel: %s", kernels.BF16KernelName())
	cases := []struct {
		n, h, w, cin, k, cout, stride int
		padding                       string
	}{
		{4, 12, 12, 16, 3, 40, 1, "same"},  // im2col
		{15, 12, 12, 16, 3, 40, 1, "same"}, // input gradient in blocks of 6, 6, 3 images (dxImageBlock)
		{8, 2, 2, 16, 3, 48, 1, "same"},    // tap classes
		{15, 8, 8, 64, 3, 16, 1, "same"},   // tap classes, the interior class's input gradient in 3 blocks
		{140, 4, 4, 32, 3, 48, 1, "same"},  // tap classes, the interior class's filter gradient on bfloat16 in 2 blocks (filterBlock)
		{6, 4, 4, 32, 3, 64, 2, "same"},
		{64, 1, 1, 40, 1, 36, 1, "same"},   // 1x1: identity panel
		{5, 13, 13, 32, 3, 64, 1, "valid"}, // the seed CNN's second convolution: blocked im2col and col2im
		// Filter gradients on packed panels (32·k channels, conv_filter_bf16.go):
		{40, 8, 8, 64, 1, 32, 2, "valid"}, // 1x1, stride 2
		{64, 5, 5, 32, 3, 32, 2, "same"},  // stride 2, odd maps: positions paired across rows and images
		{11, 7, 7, 32, 3, 32, 1, "same"},  // odd positions an image (49): blocks with a half-zero last pair
		{9, 12, 12, 16, 3, 32, 1, "same"}, // 16 channels: pair rows made in float32 first
		{16, 2, 2, 64, 3, 64, 1, "same"},  // 2x2 maps: the filter gradient in dw's layout (filterDirect)
		{4, 32, 32, 3, 7, 64, 2, "same"},  // the ResNet seed's stem: kernel rows of 21 values, a partial panel
		{2, 16, 16, 1, 8, 32, 1, "same"},  // one channel, 8x8: windows start mid-pair (packOddRun)
	}
	for _, c := range cases {
		for _, taps := range []bool{true, false} {
			t.Run(fmt.Sprintf("%+v/taps=%v", c, taps), func(t *testing.T) {
				r := rand.New(rand.NewPCG(7, uint64(c.h*1000+c.cin)))
				rnd := func(n int) []float32 {
					v := make([]float32, n)
					for i := range v {
						v[i] = r.Float32()*2 - 1
					}
					return v
				}
				xs, ws := Shape{c.n, c.h, c.w, c.cin}, Shape{c.k, c.k, c.cin, c.cout}
				g := newGeom("t", xs, c.k, c.k, [2]int{c.stride, c.stride}, [2]int{1, 1}, c.padding)
				x, w, dy := rnd(xs.Size()), rnd(ws.Size()), rnd(g.rows()*c.cout)
				xr, wr, dyr := roundedCopy(x), roundedCopy(w), roundedCopy(dy)
				got, modes := convRun(t, xs, ws, c.stride, c.padding, PrecisionBFloat16, taps, xr, wr, dyr)
				for i, m := range modes {
					if !m.bf16 {
						t.Fatalf("op %d of the convolution does not carry the bfloat16 precision", i)
					}
				}
				ref, m32 := convRun(t, xs, ws, c.stride, c.padding, "", taps, xr, wr, dyr)
				if m32 != [3]gemmMode{} {
					t.Fatalf("float32 convolution ops carry %v", m32)
				}
				abs, _ := convRun(t, xs, ws, c.stride, c.padding, "", taps, absCopy(xr), absCopy(wr), absCopy(dyr))
				plain, _ := convRun(t, xs, ws, c.stride, c.padding, "", taps, x, w, dy)
				ks := [3]int{g.patch(), c.cout * c.k * c.k, g.rows()}
				outside := false
				for i, name := range []string{"y", "dx", "dw"} {
					checkSummationOrder(t, name, ks[i], got[i], ref[i], abs[i])
					for j := range ref[i] {
						if math.Abs(float64(plain[i][j]-ref[i][j])) > 2*float64(ks[i])*math.Ldexp(1, -24)*float64(abs[i][j]) {
							outside = true
						}
					}
				}
				if !outside {
					t.Fatal("float32 results on unrounded inputs are within the bound: the test cannot tell rounding apart")
				}
			})
		}
	}
}

// TestMatMulBFloat16GEMM makes MatMul inside a bfloat16 layer (the trace's
// reads cast to bfloat16) and checks that it and its gradients carry the
// bfloat16 precision and compute the float32 product of bfloat16
// operands within summation-order error; outside such a layer, and under
// float16, MatMul keeps float32 GEMMs.
func TestMatMulBFloat16GEMM(t *testing.T) {
	const m, k, n = 37, 300, 45
	r := rand.New(rand.NewPCG(3, 5))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	a, b, dy := roundedCopy(rnd(m*k)), roundedCopy(rnd(k*n)), roundedCopy(rnd(m*n))
	run := func(castReads string, a, b, dy []float32) ([3][]float32, [3]gemmMode) {
		tr := NewTrace(true, 0, 1)
		restore := tr.CastReads(castReads)
		av, bv := tr.Input("a", Shape{m, k}), tr.Input("b", Shape{k, n})
		y := MatMul(av, bv, false, false)
		restore()
		dv := tr.Input("dy", Shape{m, n})
		op := y.n.Op().(*Op)
		gs := op.grad([]Tensor{av, bv}, y, dv)
		outs := [3][]float32{make([]float32, m*n), make([]float32, m*k), make([]float32, k*n)}
		op.Forward(outs[0], [][]float32{a, b})
		gs[0].n.Op().(*Op).Forward(outs[1], [][]float32{dy, b})
		gs[1].n.Op().(*Op).Forward(outs[2], [][]float32{a, dy})
		var modes [3]gemmMode
		for i, o := range []*Op{op, gs[0].n.Op().(*Op), gs[1].n.Op().(*Op)} {
			modes[i] = modeOfOp(t, o)
		}
		return outs, modes
	}
	got, modes := run("bfloat16", a, b, dy)
	if modes != [3]gemmMode{{true}, {true}, {true}} {
		t.Fatalf("MatMul and its gradients in a bfloat16 layer: precisions %v", modes)
	}
	for _, policy := range []string{"", "float32", "float16"} {
		if _, modes := run(policy, a, b, dy); modes != [3]gemmMode{} {
			t.Fatalf("CastReads(%q): precisions %v, want float32", policy, modes)
		}
	}
	t.Setenv("GOKERAS_BF16_GEMM", "0")
	if _, modes := run("bfloat16", a, b, dy); modes != [3]gemmMode{} {
		t.Fatalf("GOKERAS_BF16_GEMM=0: precisions %v, want float32", modes)
	}
	t.Setenv("GOKERAS_BF16_GEMM", "")
	ref, _ := run("", a, b, dy)
	abs, _ := run("", absCopy(a), absCopy(b), absCopy(dy))
	for i, name := range []string{"y", "da", "db"} {
		kk := [3]int{k, n, m}[i]
		checkSummationOrder(t, name, kk, got[i], ref[i], abs[i])
	}
}

// TestFloat32ConvKeepsSgemm checks that a float32 trace's Conv2D ops keep
// float32 GEMMs: their results equal Sgemm's of the im2col panel within
// float32 summation-order error (tap classes sum the parts of a class's
// kernel rows by GEMMs of their own), far inside a bfloat16 rounding.
func TestFloat32ConvKeepsSgemm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	xs, ws := Shape{2, 6, 6, 8}, Shape{3, 3, 8, 16}
	x := make([]float32, xs.Size())
	w := make([]float32, ws.Size())
	for i := range x {
		x[i] = r.Float32() - .5
	}
	for i := range w {
		w[i] = r.Float32() - .5
	}
	tr := NewTrace(true, 0, 1)
	y := Conv2D(tr.Input("x", xs), tr.Input("w", ws), Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"})
	op := y.n.Op().(*Op)
	if a := op.attrs.(Conv2DAttrs); a.Precision != "" {
		t.Fatalf("float32 Conv2D has precision %q", a.Precision)
	}
	got := make([]float32, y.Shape().Size())
	op.Forward(got, [][]float32{x, w})
	g := newGeom("t", xs, 3, 3, [2]int{1, 1}, [2]int{1, 1}, "same")
	cols := make([]float32, g.rows()*g.patch())
	g.im2col(cols, x)
	want := make([]float32, len(got))
	sgemm(false, false, g.rows(), 16, g.patch(), 1, cols, g.patch(), w, 16, 0, want, 16)
	abs := make([]float32, len(got))
	g.im2col(cols, absCopy(x))
	sgemm(false, false, g.rows(), 16, g.patch(), 1, cols, g.patch(), absCopy(w), 16, 0, abs, 16)
	checkSummationOrder(t, "y", g.patch(), got, want, abs)
}

// TestBFloat16KernelChoice checks bf16Faster's routing: the bfloat16
// kernel only with a hardware one, for k >= 32, and for a transposed A
// only with 32 rows and k >= 256.
func TestBFloat16KernelChoice(t *testing.T) {
	fast := kernels.HasFastBF16()
	for _, c := range []struct {
		transA  bool
		m, n, k int
		want    bool
	}{
		{false, 43264, 32, 9, false},
		{true, 9, 32, 43264, false},
		{false, 7744, 64, 288, fast},
		{false, 7744, 288, 64, fast},
		{true, 288, 64, 7744, fast},
		{true, 1600, 128, 64, false},
		{false, 64, 128, 1600, fast},
	} {
		if got := bf16Faster(c.transA, c.m, c.n, c.k); got != c.want {
			t.Errorf("bf16Faster(%v, %d, %d, %d) = %v, want %v", c.transA, c.m, c.n, c.k, got, c.want)
		}
	}
}

// TestDxConvApplies: the input gradient runs as a forward convolution
// (newDxConv) for the ResNet seed's stride-1 3x3 convolutions of 64 and 128
// channels, not for strided ones, nor for the 256-channel kernels (the
// flip costs more than it saves), nor, by tap classes, for "valid"
// padding; on packed operands (AMX) a "valid" one's too (as a "full"
// convolution over dy).
func TestDxConvApplies(t *testing.T) {
	packed := kernels.BF16PackedA()
	for _, c := range []struct {
		h, c, k, cout, stride int
		padding               string
		bf16                  bool
		want                  bool
	}{
		{8, 64, 3, 64, 1, "same", true, true},
		{4, 128, 3, 128, 1, "same", true, true},
		{8, 64, 3, 128, 2, "same", true, false},
		{2, 256, 3, 256, 1, "same", true, false},
		{8, 64, 3, 64, 1, "valid", true, packed},
		{8, 64, 3, 64, 1, "valid", false, false},
		{8, 64, 3, 64, 1, "same", false, true},
	} {
		g := newGeom("t", Shape{64, c.h, c.h, c.c}, c.k, c.k, [2]int{c.stride, c.stride}, [2]int{1, 1}, c.padding)
		if got := newDxConv(g, c.cout, gemmMode{bf16: c.bf16}) != nil; got != c.want {
			t.Errorf("%+v: dx as a forward convolution %v, want %v", c, got, c.want)
		}
	}
}

// TestPackFlippedPanels: the input gradient's kernel packed straight from
// w equals the packing of the flipped float32 kernel, bit for bit.
func TestPackFlippedPanels(t *testing.T) {
	if _, ok := kernels.BF16PackedKPairs(2); !ok {
		t.Skip("no hardware bfloat16 kernel")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ taps, c, cout int }{{9, 64, 64}, {9, 32, 64}, {1, 64, 32}, {4, 96, 16}} {
		w := make([]float32, c.taps*c.c*c.cout)
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		wt := make([]float32, len(w)) // taps x cout x c, flipped
		for tp := 0; tp < c.taps; tp++ {
			for ci := 0; ci < c.c; ci++ {
				for co := 0; co < c.cout; co++ {
					wt[(tp*c.cout+co)*c.c+ci] = w[((c.taps-1-tp)*c.c+ci)*c.cout+co]
				}
			}
		}
		kp := c.taps * c.cout / 2
		want := make([]uint32, ceilDiv(c.c, 32)*32*kp)
		packKernelPanels(want, wt, c.taps*c.cout, c.c, kp)
		got := make([]uint32, len(want))
		packFlippedPanels(got, make([]uint32, len(w)/2), w, c.taps, c.c, c.cout, kp)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%+v: word %d = %#x, flipped copy packed %#x", c, i, got[i], want[i])
			}
		}
	}
}
