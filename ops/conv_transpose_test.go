package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// convTransposeRef is the transposed convolution by its definition, in
// float64: every input pixel (b, i, j, c) adds x * w[ky, kx, f, c] to
// output (b, i*s - pad + ky*d, j*s - pad + kx*d, f), with the padding of
// the forward convolution from the output size (TensorFlow's rule).
func convTransposeRef(x []float32, xs ops.Shape, w []float32, ws ops.Shape, a ops.Conv2DTransposeAttrs) ([]float64, ops.Shape) {
	var out [2]int
	var pad [2]int
	for d := range 2 {
		op := -1
		if a.OutputPadding != nil {
			op = a.OutputPadding[d]
		}
		dil := max(a.Dilations[d], 1)
		n, err := ops.ConvTransposeOutputSize(xs[1+d], ws[d], a.Strides[d], dil, a.Padding, op)
		if err != nil {
			panic(err)
		}
		out[d] = n
		_, pad[d], _ = ops.ConvOutputSize(n, ws[d], a.Strides[d], dil, a.Padding)
	}
	f, c := ws[2], ws[3]
	os := ops.Shape{xs[0], out[0], out[1], f}
	y := make([]float64, os.Size())
	for b := 0; b < xs[0]; b++ {
		for i := 0; i < xs[1]; i++ {
			for j := 0; j < xs[2]; j++ {
				for ky := 0; ky < ws[0]; ky++ {
					for kx := 0; kx < ws[1]; kx++ {
						oy := i*a.Strides[0] - pad[0] + ky*max(a.Dilations[0], 1)
						ox := j*a.Strides[1] - pad[1] + kx*max(a.Dilations[1], 1)
						if oy < 0 || oy >= out[0] || ox < 0 || ox >= out[1] {
							continue
						}
						for fi := 0; fi < f; fi++ {
							var s float64
							for ci := 0; ci < c; ci++ {
								s += float64(x[((b*xs[1]+i)*xs[2]+j)*c+ci]) * float64(w[((ky*ws[1]+kx)*f+fi)*c+ci])
							}
							y[((b*out[0]+oy)*out[1]+ox)*f+fi] += s
						}
					}
				}
			}
		}
	}
	return y, os
}

var convTransposeCases = []struct {
	xs, ws ops.Shape
	a      ops.Conv2DTransposeAttrs
}{
	{ops.Shape{2, 4, 5, 3}, ops.Shape{3, 3, 2, 3}, ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same"}},
	{ops.Shape{1, 3, 3, 2}, ops.Shape{3, 3, 4, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "valid"}},
	{ops.Shape{2, 4, 4, 2}, ops.Shape{3, 3, 3, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{1, 1}, Padding: "same"}},
	{ops.Shape{1, 3, 4, 2}, ops.Shape{2, 3, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{3, 2}, Padding: "valid"}},
	{ops.Shape{1, 3, 3, 1}, ops.Shape{3, 3, 2, 1}, ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same", OutputPadding: []int{0, 1}}},
	{ops.Shape{1, 3, 3, 2}, ops.Shape{3, 2, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{3, 2}, Padding: "valid", OutputPadding: []int{2, 1}}},
	{ops.Shape{1, 5, 4, 2}, ops.Shape{3, 3, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{2, 1}, Padding: "same"}},
	{ops.Shape{2, 3, 3, 4}, ops.Shape{1, 1, 3, 4}, ops.Conv2DTransposeAttrs{Strides: [2]int{1, 1}, Padding: "valid"}},
}

func TestConv2DTransposeValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i, c := range convTransposeCases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			x, w := make([]float32, c.xs.Size()), make([]float32, c.ws.Size())
			for j := range x {
				x[j] = float32(r.NormFloat64())
			}
			for j := range w {
				w[j] = float32(r.NormFloat64())
			}
			want, os := convTransposeRef(x, c.xs, w, c.ws, c.a)
			got := runOne(t, func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				y := ops.Conv2DTranspose(in[0], in[1], c.a)
				if !y.Shape().Equal(os) {
					t.Fatalf("shape %v, want %v", y.Shape(), os)
				}
				return y
			}, []ops.Shape{c.xs, c.ws}, [][]float32{x, w})
			for j := range want {
				if math.Abs(float64(got[j])-want[j]) > 1e-4*math.Max(1, math.Abs(want[j])) {
					t.Fatalf("y[%d] = %v, want %v", j, got[j], want[j])
				}
			}
		})
	}
}

func TestConv2DTransposeGradients(t *testing.T) {
	for i, c := range convTransposeCases {
		a := c.a
		checkGrad(t, gradCase{name: fmt.Sprint("Conv2DTranspose", i), shapes: []ops.Shape{c.xs, c.ws},
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Conv2DTranspose(x[0], x[1], a) }})
	}
}

func TestConvTransposeOutputSize(t *testing.T) {
	for _, c := range []struct {
		in, k, s, d int
		pad         string
		op, want    int
	}{
		{14, 3, 2, 1, "same", -1, 28}, // the autoencoder's decoder
		{7, 3, 2, 1, "same", -1, 14},
		{5, 3, 2, 1, "valid", -1, 11},
		{5, 2, 3, 1, "valid", -1, 15}, // max(k, s) - k extra
		{5, 3, 2, 1, "same", 1, 10},
		{5, 3, 2, 1, "same", 0, 9},
		{5, 3, 1, 2, "valid", -1, 9},
		{4, 4, 2, 1, "valid", 1, 11},
	} {
		got, err := ops.ConvTransposeOutputSize(c.in, c.k, c.s, c.d, c.pad, c.op)
		if err != nil || got != c.want {
			t.Errorf("ConvTransposeOutputSize(%d, %d, %d, %d, %q, %d) = %d, %v; want %d", c.in, c.k, c.s, c.d, c.pad, c.op, got, err, c.want)
		}
	}
	for _, c := range []struct {
		in, k, s, op int
		pad          string
	}{{5, 3, 2, 2, "same"}, {5, 3, 0, -1, "same"}, {5, 3, 2, -1, "full"}, {0, 3, 2, -1, "same"}} {
		if _, err := ops.ConvTransposeOutputSize(c.in, c.k, c.s, 1, c.pad, c.op); err == nil {
			t.Errorf("ConvTransposeOutputSize(%d, %d, %d, 1, %q, %d): no error", c.in, c.k, c.s, c.pad, c.op)
		}
	}
}

func TestConv2DTransposeErrors(t *testing.T) {
	bad := []struct {
		xs, ws ops.Shape
		a      ops.Conv2DTransposeAttrs
	}{
		{ops.Shape{1, 3, 3}, ops.Shape{3, 3, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{1, 1}, Padding: "same"}},
		{ops.Shape{1, 3, 3, 2}, ops.Shape{3, 3, 2, 3}, ops.Conv2DTransposeAttrs{Strides: [2]int{1, 1}, Padding: "same"}},
		{ops.Shape{1, 3, 3, 2}, ops.Shape{3, 3, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same", OutputPadding: []int{2, 0}}},
		{ops.Shape{1, 3, 3, 2}, ops.Shape{2, 2, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same", OutputPadding: []int{0, 0}}},
		{ops.Shape{1, 3, 3, 2}, ops.Shape{3, 3, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{0, 1}, Padding: "same"}},
		{ops.Shape{1, 3, 3, 2}, ops.Shape{3, 3, 2, 2}, ops.Conv2DTransposeAttrs{Strides: [2]int{1, 1}, Padding: "same", OutputPadding: []int{0}}},
	}
	for i, c := range bad {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					e, ok := r.(*ops.Error)
					if !ok {
						panic(r)
					}
					err = e
				}
			}()
			tr := ops.NewTrace(false, 0, 1)
			ops.Conv2DTranspose(tr.Input("x", c.xs), tr.Input("w", c.ws), c.a)
			return nil
		}()
		if err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}

// transposeRef permutes x of shape xs by perm, by index arithmetic.
func transposeRef(x []float32, xs ops.Shape, perm []int) []float32 {
	os := make(ops.Shape, len(xs))
	for i, p := range perm {
		os[i] = xs[p]
	}
	out := make([]float32, len(x))
	idx := make([]int, len(xs))
	for o := range out {
		rem := o
		for d := len(os) - 1; d >= 0; d-- {
			idx[d] = rem % os[d]
			rem /= os[d]
		}
		in := 0
		for d := range xs {
			// input axis d is output axis i with perm[i] == d
			for i, p := range perm {
				if p == d {
					in = in*xs[d] + idx[i]
				}
			}
		}
		out[o] = x[in]
	}
	return out
}

func TestTransposeValues(t *testing.T) {
	for _, c := range []struct {
		xs   ops.Shape
		perm []int
	}{
		{ops.Shape{3, 4}, []int{1, 0}},
		{ops.Shape{2, 3, 4}, []int{0, 2, 1}},
		{ops.Shape{2, 3, 4}, []int{2, 0, 1}},
		{ops.Shape{2, 3, 4, 5}, []int{1, 0, 2, 3}},
		{ops.Shape{2, 3, 4, 5}, []int{2, 0, 1, 3}},
		{ops.Shape{2, 3, 4, 5}, []int{3, 2, 1, 0}},
		{ops.Shape{5, 1, 3}, []int{1, 2, 0}},
		{ops.Shape{64, 33, 7}, []int{1, 0, 2}},
	} {
		x := make([]float32, c.xs.Size())
		for i := range x {
			x[i] = float32(i)
		}
		got := runOne(t, func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Transpose(in[0], c.perm) }, []ops.Shape{c.xs}, [][]float32{x})
		want := transposeRef(x, c.xs, c.perm)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("Transpose(%v, %v)[%d] = %v, want %v", c.xs, c.perm, i, got[i], want[i])
			}
		}
	}
}

func TestUpSample2DValues(t *testing.T) {
	// nearest: output (b, y, x, c) is input (b, y/sh, x/sw, c)
	xs := ops.Shape{2, 3, 2, 3}
	x := make([]float32, xs.Size())
	for i := range x {
		x[i] = float32(i)
	}
	got := runOne(t, func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.UpSample2D(in[0], [2]int{2, 3}, "nearest") }, []ops.Shape{xs}, [][]float32{x})
	i := 0
	for b := 0; b < 2; b++ {
		for y := 0; y < 6; y++ {
			for xx := 0; xx < 6; xx++ {
				for c := 0; c < 3; c++ {
					if want := x[((b*3+y/2)*2+xx/3)*3+c]; got[i] != want {
						t.Fatalf("nearest[%d] = %v, want %v", i, got[i], want)
					}
					i++
				}
			}
		}
	}
	// bilinear by factor 2 of a row [a, b]: TensorFlow's half-pixel
	// samples at -0.25, 0.25, 0.75, 1.25 (clamped): a, .75a+.25b, .25a+.75b, b.
	got = runOne(t, func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.UpSample2D(in[0], [2]int{1, 2}, "bilinear") },
		[]ops.Shape{{1, 1, 2, 1}}, [][]float32{{4, 8}})
	want := []float32{4, 5, 7, 8}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("bilinear = %v, want %v", got, want)
		}
	}
}

func TestShapeOpsGradients(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	for _, c := range []gradCase{
		{name: "Transpose", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Transpose(x[0], []int{2, 0, 1}) }},
		{name: "TransposeKeepLast", shapes: []ops.Shape{s(2, 3, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Transpose(x[0], []int{1, 2, 0, 3})
		}},
		{name: "UpSampleNearest", shapes: []ops.Shape{s(2, 3, 2, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.UpSample2D(x[0], [2]int{2, 3}, "nearest")
		}},
		{name: "UpSampleBilinear", shapes: []ops.Shape{s(2, 3, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.UpSample2D(x[0], [2]int{3, 2}, "bilinear")
		}},
	} {
		checkGrad(t, c)
	}
}

// BenchmarkConv2DTransposeStep times the forward pass and both gradients
// of the autoencoder's second decoder layer (14x14x32 to 28x28x32, 3x3,
// stride 2, batch 32) against the convolution it transposes (28x28x32 to
// 14x14x32): the same multiply-adds.
func BenchmarkConv2DTransposeStep(b *testing.B) {
	const n = 32
	for _, transpose := range []bool{true, false} {
		r := rand.New(rand.NewPCG(1, 1))
		xs, ws := ops.Shape{n, 14, 14, 32}, ops.Shape{3, 3, 32, 32}
		if !transpose {
			xs = ops.Shape{n, 28, 28, 32}
		}
		fill := func(s ops.Shape) []float32 {
			v := make([]float32, s.Size())
			for i := range v {
				v[i] = r.Float32() - 0.5
			}
			return v
		}
		xv := ops.NewVariable("x", xs, fill(xs), true)
		wv := ops.NewVariable("w", ws, fill(ws), true)
		tr := ops.NewTrace(true, 0, 1)
		var y ops.Tensor
		if transpose {
			y = ops.Conv2DTranspose(tr.Read(xv), tr.Read(wv), ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same"})
		} else {
			y = ops.Conv2D(tr.Read(xv), tr.Read(wv), ops.Conv2DAttrs{Strides: [2]int{2, 2}, Padding: "same"})
		}
		loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), fill(y.Shape()))), false)
		grads, err := ops.Gradients(loss, []*ops.Variable{xv, wv})
		if err != nil {
			b.Fatal(err)
		}
		p, err := engine.Compile(tr, append([]ops.Tensor{loss}, grads...))
		if err != nil {
			b.Fatal(err)
		}
		name := "Conv2D"
		if transpose {
			name = "Conv2DTranspose"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := p.Run(engine.Single{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestUpSample2DErrors(t *testing.T) {
	for _, c := range []struct {
		xs     ops.Shape
		size   [2]int
		interp string
	}{
		{ops.Shape{1, 4, 4, 1}, [2]int{0, 2}, "nearest"},
		{ops.Shape{1, 4, 4, 1}, [2]int{2, 2}, "bicubic"},
		{ops.Shape{1, 4, 4}, [2]int{2, 2}, "nearest"},
		{ops.Shape{2, 28, 28, 1}, [2]int{1 << 40, 2}, "nearest"},
		{ops.Shape{2, 28, 28, 1}, [2]int{1 << 62, 1 << 62}, "nearest"},
		{ops.Shape{1, 1000, 10, 1}, [2]int{1000, 1}, "bilinear"},
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					e, ok := r.(*ops.Error)
					if !ok {
						panic(r)
					}
					err = e
				}
			}()
			tr := ops.NewTrace(false, 0, 1)
			ops.UpSample2D(tr.Input("x", c.xs), c.size, c.interp)
			return nil
		}()
		if err == nil {
			t.Errorf("UpSample2D(%v, %v, %q): no error", c.xs, c.size, c.interp)
		}
	}
}
