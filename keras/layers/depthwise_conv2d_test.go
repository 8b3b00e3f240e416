package layers_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestDepthwiseConv2DConformance(t *testing.T) {
	layertest.Run(t, layers.NewDepthwiseConv2D(3), ops.Shape{2, 6, 6, 3}, ops.Shape{2, 4, 4, 3}, 3*3*3+3)
	layertest.Run(t, layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithActivation("relu")),
		ops.Shape{1, 5, 5, 2}, ops.Shape{1, 5, 5, 4}, 3*3*2*2+4)
	layertest.Run(t, layers.NewDepthwiseConv2D(2, layers.WithStrides(2), layers.WithUseBias(false)), ops.Shape{2, 7, 7, 1}, ops.Shape{2, 3, 3, 1}, 2*2)
	layertest.Run(t, layers.NewDepthwiseConv2D(3, layers.WithDilationRate(2), layers.WithDepthMultiplier(3)), ops.Shape{1, 7, 8, 2}, ops.Shape{1, 3, 4, 6}, 3*3*2*3+6)
	layertest.Run(t, layers.NewDepthwiseConv2D(0, layers.WithKernelSize(1, 3), layers.WithPadding("same"), layers.WithStrides(2, 1)),
		ops.Shape{1, 5, 4, 2}, ops.Shape{1, 3, 4, 2}, 1*3*2+2)
}

// depthwiseConvRef is a naive depthwise convolution plus bias in float64:
// output channel c*mult+m is channel c convolved with k[:, :, c, m].
func depthwiseConvRef(x []float32, xs ops.Shape, k []float64, kh, kw, mult int, b []float64, stride, dil [2]int, padding string) ([]float64, ops.Shape) {
	n, h, w, c := xs[0], xs[1], xs[2], xs[3]
	var oh, ow, pt, pl int
	if padding == "same" {
		oh, pt = samePad(h, kh, stride[0], dil[0])
		ow, pl = samePad(w, kw, stride[1], dil[1])
	} else {
		oh = (h-((kh-1)*dil[0]+1))/stride[0] + 1
		ow = (w-((kw-1)*dil[1]+1))/stride[1] + 1
	}
	out := make([]float64, n*oh*ow*c*mult)
	for bi := 0; bi < n; bi++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				for ci := 0; ci < c; ci++ {
					for m := 0; m < mult; m++ {
						s := b[ci*mult+m]
						for ky := 0; ky < kh; ky++ {
							for kx := 0; kx < kw; kx++ {
								iy, ix := oy*stride[0]-pt+ky*dil[0], ox*stride[1]-pl+kx*dil[1]
								if iy >= 0 && iy < h && ix >= 0 && ix < w {
									s += float64(x[((bi*h+iy)*w+ix)*c+ci]) * k[((ky*kw+kx)*c+ci)*mult+m]
								}
							}
						}
						out[((bi*oh+oy)*ow+ox)*c*mult+ci*mult+m] = s
					}
				}
			}
		}
	}
	return out, ops.Shape{n, oh, ow, c * mult}
}

func TestDepthwiseConv2DAgainstReference(t *testing.T) {
	type tc struct {
		kh, kw, mult int
		stride, dil  [2]int
		padding      string
		in           ops.Shape
		bias, relu   bool
	}
	cases := []tc{
		{kh: 3, kw: 3, mult: 1, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{2, 5, 6, 2}, bias: true},
		{kh: 3, kw: 3, mult: 2, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 5, 5, 3}, bias: true, relu: true},
		{kh: 2, kw: 2, mult: 3, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 4, 5, 1}},
		{kh: 3, kw: 3, mult: 1, stride: [2]int{2, 2}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{2, 7, 8, 2}, bias: true},
		{kh: 4, kw: 4, mult: 2, stride: [2]int{3, 2}, dil: [2]int{1, 1}, padding: "same", in: ops.Shape{1, 8, 7, 2}, bias: true},
		{kh: 3, kw: 2, mult: 2, stride: [2]int{1, 1}, dil: [2]int{2, 3}, padding: "same", in: ops.Shape{2, 6, 7, 2}, bias: true},
		{kh: 1, kw: 1, mult: 4, stride: [2]int{1, 1}, dil: [2]int{1, 1}, padding: "valid", in: ops.Shape{1, 3, 3, 2}, bias: true},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			act := ""
			if c.relu {
				act = "relu"
			}
			l := layers.NewDepthwiseConv2D(0, layers.WithKernelSize(c.kh, c.kw), layers.WithStrides(c.stride[0], c.stride[1]),
				layers.WithDilationRate(c.dil[0], c.dil[1]), layers.WithPadding(c.padding), layers.WithUseBias(c.bias),
				layers.WithDepthMultiplier(c.mult), layers.WithActivation(act))
			if _, err := layers.OutputShape(l, []ops.Shape{{-1, c.in[1], c.in[2], c.in[3]}}); err != nil {
				t.Fatal(err)
			}
			if want := (ops.Shape{c.kh, c.kw, c.in[3], c.mult}); !l.DepthwiseKernel.Shape().Equal(want) {
				t.Fatalf("kernel shape %v, want %v", l.DepthwiseKernel.Shape(), want)
			}
			k := make([]float64, c.kh*c.kw*c.in[3]*c.mult)
			for j := range k {
				k[j] = math.Sin(float64(j)*0.7) * 0.5
			}
			if err := l.DepthwiseKernel.Assign(f32(k)); err != nil {
				t.Fatal(err)
			}
			b := make([]float64, c.in[3]*c.mult)
			if c.bias {
				for j := range b {
					b[j] = 0.1*float64(j+1) - 0.3
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
			want, ws := depthwiseConvRef(x, c.in, k, c.kh, c.kw, c.mult, b, c.stride, c.dil, c.padding)
			if c.relu {
				for j := range want {
					want[j] = math.Max(want[j], 0)
				}
			}
			y := layertest.Forward(t, l, false, ops.Value{Shape: c.in, Data: x})
			if !y.Shape.Equal(ws) {
				t.Fatalf("shape %v, want %v", y.Shape, ws)
			}
			layertest.AllClose(t, "depthwise", y.Data, want, 1e-5)
		})
	}
}

func TestDepthwiseConv2DWeightsAndConfig(t *testing.T) {
	l := layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2), layers.WithName("dw"), layers.WithDepthwiseRegularizer(layers.L2(0.01)))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 8, 8, 3}}); err != nil {
		t.Fatal(err)
	}
	ws := l.Weights()
	if len(ws) != 2 || ws[0].Name() != "dw/kernel" || ws[1].Name() != "dw/bias" || !ws[1].Shape().Equal(ops.Shape{6}) {
		t.Errorf("weights %v", ws)
	}
	// glorot_uniform with Keras' fans of (3, 3, 3, 2): 27 in, 18 out.
	limit := math.Sqrt(6.0 / (27 + 18))
	for _, v := range ws[0].Data(0) {
		if math.Abs(float64(v)) > limit {
			t.Fatalf("kernel value %v beyond the glorot limit %v", v, limit)
		}
	}
	cfg := l.GetConfig()
	for _, k := range []string{"kernel_size", "strides", "padding", "depth_multiplier", "data_format", "dilation_rate", "activation",
		"use_bias", "depthwise_initializer", "bias_initializer", "depthwise_regularizer", "bias_regularizer"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("config lacks %q", k)
		}
	}
	if cfg["depth_multiplier"] != 2 || cfg["padding"] != "valid" || cfg["activation"] != "linear" || cfg["depthwise_regularizer"] == nil {
		t.Errorf("config %v", cfg)
	}
	if n := len(l.RegularizationLosses(ops.NewTrace(false, 0, 0))); n != 1 {
		t.Errorf("%d regularization losses, want 1", n)
	}
}

func TestDepthwiseConv2DErrors(t *testing.T) {
	wantErr(t, layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(0), layers.WithName("d1")).Err(), "DepthwiseConv2D", "d1", "depth_multiplier")
	wantErr(t, layers.NewDepthwiseConv2D(0, layers.WithName("d2")).Err(), "DepthwiseConv2D", "d2", "kernel_size")
	wantErr(t, layers.NewDepthwiseConv2D(3, layers.WithStrides(2), layers.WithDilationRate(2)).Err(), "DepthwiseConv2D", "dilation_rate")
	wantErr(t, layers.NewDepthwiseConv2D(3, layers.WithKernelInitializer(layers.Zeros())).Err(), "DepthwiseConv2D", "kernel_initializer")
	wantErr(t, layers.NewDepthwiseConv2D(3, layers.WithActivation("nope")).Err(), "DepthwiseConv2D", "nope")
	_, err := layers.OutputShape(layers.NewDepthwiseConv2D(3, layers.WithName("d3")), []ops.Shape{{-1, 5, 5}})
	wantErr(t, err, "DepthwiseConv2D", "d3", "rank-4")
	_, err = layers.OutputShape(layers.NewDepthwiseConv2D(5, layers.WithName("d4")), []ops.Shape{{-1, 3, 3, 1}})
	wantErr(t, err, "DepthwiseConv2D", "d4", "smaller than")
}
