package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// samePad returns TensorFlow's "same" output size and padding before for
// one dimension: out = ceil(in/stride), the odd pixel of padding after.
func samePad(in, k, stride, dil int) (out, before int) {
	ek := (k-1)*dil + 1
	out = (in + stride - 1) / stride
	total := max((out-1)*stride+ek-in, 0)
	return out, total / 2
}

// convRef is a naive NHWC x HWIO cross-correlation plus bias, in float64.
func convRef(x []float32, xs ops.Shape, k []float64, kh, kw, f int, b []float64, stride, dil [2]int, padding string) ([]float64, ops.Shape) {
	n, h, w, c := xs[0], xs[1], xs[2], xs[3]
	var oh, ow, pt, pl int
	if padding == "same" {
		oh, pt = samePad(h, kh, stride[0], dil[0])
		ow, pl = samePad(w, kw, stride[1], dil[1])
	} else {
		oh = (h-((kh-1)*dil[0]+1))/stride[0] + 1
		ow = (w-((kw-1)*dil[1]+1))/stride[1] + 1
	}
	out := make([]float64, n*oh*ow*f)
	for bi := 0; bi < n; bi++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				for fo := 0; fo < f; fo++ {
					s := b[fo]
					for ky := 0; ky < kh; ky++ {
						for kx := 0; kx < kw; kx++ {
							iy, ix := oy*stride[0]-pt+ky*dil[0], ox*stride[1]-pl+kx*dil[1]
							if iy < 0 || iy >= h || ix < 0 || ix >= w {
								continue
							}
							for ci := 0; ci < c; ci++ {
								s += float64(x[((bi*h+iy)*w+ix)*c+ci]) * k[((ky*kw+kx)*c+ci)*f+fo]
							}
						}
					}
					out[((bi*oh+oy)*ow+ox)*f+fo] = s
				}
			}
		}
	}
	return out, ops.Shape{n, oh, ow, f}
}

func TestConv2DConformance(t *testing.T) {
	layertest.Run(t, layers.NewConv2D(4, 3), ops.Shape{2, 6, 6, 3}, ops.Shape{2, 4, 4, 4}, 3*3*3*4+4)
	layertest.Run(t, layers.NewConv2D(2, 3, layers.WithPadding("same"), layers.WithActivation("relu")), ops.Shape{1, 5, 5, 2}, ops.Shape{1, 5, 5, 2}, 3*3*2*2+2)
	layertest.Run(t, layers.NewConv2D(3, 2, layers.WithStrides(2), layers.WithUseBias(false)), ops.Shape{2, 7, 7, 1}, ops.Shape{2, 3, 3, 3}, 2*2*1*3)
	layertest.Run(t, layers.NewConv2D(2, 3, layers.WithDilationRate(2)), ops.Shape{1, 7, 8, 2}, ops.Shape{1, 3, 4, 2}, 3*3*2*2+2)
	layertest.Run(t, layers.NewConv2D(2, 0, layers.WithKernelSize(1, 3), layers.WithPadding("same"), layers.WithStrides(2, 1)), ops.Shape{1, 5, 4, 2}, ops.Shape{1, 3, 4, 2}, 1*3*2*2+2)
}

func TestConv2DAgainstReference(t *testing.T) {
	type tc struct {
		f, kh, kw       int
		stride, dil     [2]int
		padding         string
		in              ops.Shape
		bias, fromShape bool
	}
	cases := []tc{
		{f: 3, kh: 3, kw: 3, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{2, 5, 6, 2}, bias: true},
		{f: 2, kh: 3, kw: 3, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 5, 5, 3}, bias: true},
		{f: 2, kh: 2, kw: 2, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 4, 5, 1}},
		{f: 4, kh: 3, kw: 3, stride: [2]int{2, 2}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{2, 7, 8, 2}, bias: true},
		{f: 2, kh: 3, kw: 3, stride: [2]int{2, 2}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 6, 7, 2}},
		{f: 2, kh: 4, kw: 4, stride: [2]int{3, 2}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 8, 7, 1}, bias: true},
		{f: 2, kh: 3, kw: 3, stride: [2]int{1, 1}, dil: [2]int{2, 2}, padding: "valid", in: ops.Shape{1, 7, 7, 2}},
		{f: 3, kh: 3, kw: 2, stride: [2]int{1, 1}, dil: [2]int{2, 3}, padding: "same", in: ops.Shape{2, 6, 7, 2}, bias: true},
		{f: 1, kh: 1, kw: 1, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{1, 3, 3, 4}, bias: true},
		{f: 2, kh: 1, kw: 3, stride: [2]int{2, 1}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{1, 5, 5, 2}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			opts := []layers.Option{layers.WithKernelSize(c.kh, c.kw), layers.WithStrides(c.stride[0], c.stride[1]),
				layers.WithDilationRate(c.dil[0], c.dil[1]), layers.WithPadding(c.padding), layers.WithUseBias(c.bias)}
			l := layers.NewConv2D(c.f, 0, opts...)
			if _, err := layers.OutputShape(l, []ops.Shape{{-1, c.in[1], c.in[2], c.in[3]}}); err != nil {
				t.Fatal(err)
			}
			k := make([]float64, c.kh*c.kw*c.in[3]*c.f)
			for j := range k {
				k[j] = math.Sin(float64(j)*0.7) * 0.5
			}
			if err := l.Kernel.Assign(f32(k)); err != nil {
				t.Fatal(err)
			}
			b := make([]float64, c.f)
			if c.bias {
				for j := range b {
					b[j] = 0.1 * float64(j+1)
				}
				if err := l.Bias.Assign(f32(b)); err != nil {
					t.Fatal(err)
				}
			} else if l.Bias != nil {
				t.Fatal("use_bias=false made a bias")
			}
			x := make([]float32, c.in.Size())
			for j := range x {
				x[j] = float32(math.Cos(float64(j) * 0.3))
			}
			want, ws := convRef(x, c.in, k, c.kh, c.kw, c.f, b, c.stride, c.dil, c.padding)
			y := layertest.Forward(t, l, false, ops.Value{Shape: c.in, Data: x})
			if !y.Shape.Equal(ws) {
				t.Fatalf("shape %v, want %v", y.Shape, ws)
			}
			layertest.AllClose(t, "conv", y.Data, want, 1e-5)
		})
	}
}

func TestConv2DHandComputed(t *testing.T) {
	// A 3x3 image 1..9, a 2x2 kernel [[1 0] [0 -1]] (x[i][j] - x[i+1][j+1]): every output is -4.
	l := layers.NewConv2D(1, 2, layers.WithBiasInitializer(layers.Constant(0.5)))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 3, 3, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Kernel.Assign([]float32{1, 0, 0, -1}); err != nil {
		t.Fatal(err)
	}
	y := layertest.Forward(t, l, false, ops.Value{Shape: ops.Shape{1, 3, 3, 1}, Data: seq(9, 1, 1)})
	layertest.AllClose(t, "conv", y.Data, []float64{-3.5, -3.5, -3.5, -3.5}, 0)

	// "same" with a 2x2 kernel pads one row and column after: the last
	// row and column see zeros below and to the right.
	s := layers.NewConv2D(1, 2, layers.WithPadding("same"), layers.WithUseBias(false), layers.WithKernelInitializer(layers.Ones()))
	y = layertest.Forward(t, s, false, ops.Value{Shape: ops.Shape{1, 3, 3, 1}, Data: seq(9, 1, 1)})
	layertest.AllClose(t, "conv same", y.Data, []float64{12, 16, 9, 24, 28, 15, 15, 17, 9}, 0)
}

func TestConv2DConfig(t *testing.T) {
	l := layers.NewConv2D(8, 3, layers.WithStrides(2, 1), layers.WithPadding("same"), layers.WithActivation("relu"))
	cfg := l.GetConfig()
	for k, want := range map[string]string{
		"filters": "8", "kernel_size": "[3 3]", "strides": "[2 1]", "padding": "same", "dilation_rate": "[1 1]",
		"activation": "relu", "use_bias": "true", "data_format": "channels_last",
	} {
		if got := fmt.Sprint(cfg[k]); got != want {
			t.Errorf("config %s = %s, want %s", k, got, want)
		}
	}
}
