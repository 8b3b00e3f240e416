package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/internal/vec"
)

// The convolutions of one ResNet-seed training step at batch 64, split
// into their parts (im2col, GEMMs, col2im), for docs/performance.md.
var resnetConvs = []struct {
	h, w, cin, k, cout, stride int
	pad                        string
	count                      int // how many such convs per step
}{
	{32, 32, 3, 7, 64, 2, "same", 1},
	{8, 8, 64, 1, 64, 1, "valid", 1},
	{8, 8, 64, 3, 64, 1, "same", 4},
	{8, 8, 64, 1, 128, 2, "valid", 1},
	{8, 8, 64, 3, 128, 2, "same", 1},
	{4, 4, 128, 3, 128, 1, "same", 3},
	{4, 4, 128, 1, 256, 2, "valid", 1},
	{4, 4, 128, 3, 256, 2, "same", 1},
	{2, 2, 256, 3, 256, 1, "same", 3},
}

func BenchmarkConvParts(b *testing.B) {
	const n = 64
	r := rand.New(rand.NewPCG(1, 1))
	rnd := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = r.Float32() - 0.5
		}
		return v
	}
	for _, c := range resnetConvs {
		g := newGeom("bench", Shape{n, c.h, c.w, c.cin}, c.k, c.k, [2]int{c.stride, c.stride}, [2]int{1, 1}, c.pad)
		x, w := rnd(n*c.h*c.w*c.cin), rnd(c.k*c.k*c.cin*c.cout)
		cols := make([]float32, g.rows()*g.patch())
		y, dy := make([]float32, g.rows()*c.cout), rnd(g.rows()*c.cout)
		dx, dw := make([]float32, len(x)), make([]float32, len(w))
		name := fmt.Sprintf("%dx%dx%d_k%d_s%d_%d", c.h, c.w, c.cin, c.k, c.stride, c.cout)
		flops := 2 * float64(g.rows()) * float64(g.patch()) * float64(c.cout)
		gf := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		b.Run(name+"/im2col", func(b *testing.B) {
			for b.Loop() {
				g.im2col(cols, x)
			}
		})
		b.Run(name+"/fwd_gemm", func(b *testing.B) {
			for b.Loop() {
				sgemm(false, false, g.rows(), c.cout, g.patch(), 1, cols, g.patch(), w, c.cout, 0, y, c.cout)
			}
			gf(b)
		})
		b.Run(name+"/dx_gemm", func(b *testing.B) {
			for b.Loop() {
				sgemm(false, true, g.rows(), g.patch(), c.cout, 1, dy, c.cout, w, c.cout, 0, cols, g.patch())
			}
			gf(b)
		})
		b.Run(name+"/col2im", func(b *testing.B) {
			for b.Loop() {
				g.col2im(dx, cols)
			}
		})
		b.Run(name+"/dw_gemm", func(b *testing.B) {
			for b.Loop() {
				sgemm(true, false, g.patch(), c.cout, g.rows(), 1, cols, g.patch(), dy, c.cout, 0, dw, c.cout)
			}
			gf(b)
		})
	}
}

func BenchmarkIm2colCNN(b *testing.B) {
	g := newGeom("bench", Shape{64, 28, 28, 1}, 3, 3, [2]int{1, 1}, [2]int{1, 1}, "valid")
	x := make([]float32, 64*28*28)
	cols := make([]float32, g.rows()*g.patch())
	for b.Loop() {
		g.im2col(cols, x)
	}
}

// cnnConvs are the seed CNN's convolutions (examples/internal/models
// MNISTCNN) at batch 64.
var cnnConvs = []struct {
	h, w, cin, k, cout, stride int
	pad                        string
	count                      int
}{
	{28, 28, 1, 3, 32, 1, "valid", 1},
	{13, 13, 32, 3, 64, 1, "valid", 1},
}

// BenchmarkConvOp times the forward op and both gradient ops of the
// ResNet-seed and seed-CNN convolutions, with and without tap classes, and with tap
// classes on bfloat16 GEMMs (on bfloat16 operands, as mixed_bfloat16).
func BenchmarkConvOp(b *testing.B) {
	const n = 64
	r := rand.New(rand.NewPCG(1, 1))
	rnd := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = r.Float32() - 0.5
		}
		return v
	}
	for _, c := range append(resnetConvs[:len(resnetConvs):len(resnetConvs)], cnnConvs...) {
		for _, v := range []struct {
			off  bool
			prec string
		}{{false, ""}, {true, ""}, {false, PrecisionBFloat16}} {
			off := v.off
			noTapClasses = off
			tr := NewTrace(true, 0, 1)
			xv := tr.Input("x", Shape{n, c.h, c.w, c.cin})
			wv := tr.Input("w", Shape{c.k, c.k, c.cin, c.cout})
			y := Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{c.stride, c.stride}, Padding: c.pad, Precision: v.prec})
			ys := y.Shape()
			dv := tr.Input("dy", ys)
			op := y.n.Op().(*Op)
			noTapClasses = false
			grads := op.grad([]Tensor{xv, wv}, y, dv)
			x, w, dy := rnd(n*c.h*c.w*c.cin), rnd(c.k*c.k*c.cin*c.cout), rnd(ys.Size())
			yb, dx, dw := make([]float32, ys.Size()), make([]float32, len(x)), make([]float32, len(w))
			if v.prec != "" { // the operands of a bfloat16 layer are bfloat16 values
				for _, s := range [][]float32{x, w, dy} {
					roundBFloat16Slice(s, s)
				}
			}
			name := fmt.Sprintf("%dx%dx%d_k%d_s%d_%d/taps=%v", c.h, c.w, c.cin, c.k, c.stride, c.cout, !off)
			if v.prec != "" {
				name += "/" + v.prec
			}
			inOp := grads[0].n.Op().(*Op)
			inArgs := [][]float32{w, dy}
			if len(inOp.ins) == 3 {
				inArgs = append(inArgs, yb)
			}
			op.Forward(yb, [][]float32{x, w})
			b.Run(name+"/fwd", func(b *testing.B) {
				for b.Loop() {
					op.Forward(yb, [][]float32{x, w})
				}
			})
			// The forward pass with the bias and ReLU in its epilogue
			// (Conv2DBiasRelu, conv_bias.go), against fwd plus a
			// BiasAddRelu pass over the output.
			bv := tr.Input("b", Shape{c.cout})
			noTapClasses = off
			fused := Relu(BiasAdd(Conv2D(xv, wv, Conv2DAttrs{Strides: [2]int{c.stride, c.stride}, Padding: c.pad, Precision: v.prec}), bv))
			noTapClasses = false
			fusedOp, bias := fused.n.Op().(*Op), rnd(c.cout)
			b.Run(name+"/fwd_bias_relu", func(b *testing.B) {
				for b.Loop() {
					fusedOp.Forward(yb, [][]float32{x, w, bias})
				}
			})
			b.Run(name+"/dx", func(b *testing.B) {
				for b.Loop() {
					inOp.Forward(dx, inArgs)
				}
			})
			b.Run(name+"/dw", func(b *testing.B) {
				for b.Loop() {
					grads[1].n.Op().(*Op).Forward(dw, [][]float32{x, dy, yb})
				}
			})
		}
	}
}

// BenchmarkTranspose times the transpose of the tap-class input gradient
// (the 4x4x128 interior class: 1152 x 256).
func BenchmarkTranspose(b *testing.B) {
	r, c := 1152, 256
	src := make([]float32, r*c)
	dst := make([]float32, r*c)
	b.SetBytes(int64(8 * r * c))
	for b.Loop() {
		transpose(dst, src, r, c)
	}
}

// BenchmarkAvgPoolWindows: a 2x2 average pool over a 64x16x16x64 batch,
// the forward scan of AvgPool2D (the gradient's is the same walk).
func BenchmarkAvgPoolWindows(b *testing.B) {
	g := newGeom("bench", Shape{64, 16, 16, 64}, 2, 2, [2]int{2, 2}, [2]int{1, 1}, "valid")
	x := make([]float32, 64*16*16*64)
	o := make([]float32, 64*8*8*64)
	for b.Loop() {
		clear(o)
		avgPoolWindows(g, func(ob, ib int, inv float32) { vec.Axpy(o[ob:ob+g.c], x[ib:ib+g.c], inv) })
	}
}
