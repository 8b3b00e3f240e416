package layers_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestConv1DConformance(t *testing.T) {
	layertest.Run(t, layers.NewConv1D(4, 3), ops.Shape{2, 7, 3}, ops.Shape{2, 5, 4}, 3*3*4+4)
	layertest.Run(t, layers.NewConv1D(2, 3, layers.WithPadding("same"), layers.WithStrides(2), layers.WithActivation("tanh")),
		ops.Shape{2, 7, 2}, ops.Shape{2, 4, 2}, 3*2*2+2)
	layertest.Run(t, layers.NewConv1D(3, 2, layers.WithPadding("causal"), layers.WithDilationRate(2), layers.WithUseBias(false)),
		ops.Shape{1, 6, 2}, ops.Shape{1, 6, 3}, 2*2*3)
}

// conv1DRef is a naive 1-D convolution plus bias in float64; causal pads
// (k-1)*dil zeros before the sequence.
func conv1DRef(x []float32, n, steps, c int, k []float64, ks, f int, b []float64, stride, dil int, padding string) ([]float64, int) {
	ek := (ks-1)*dil + 1
	var out, before int
	switch padding {
	case "valid":
		out = (steps-ek)/stride + 1
	case "same":
		out, before = samePad(steps, ks, stride, dil)
	case "causal":
		out, before = (steps-1)/stride+1, ek-1
	}
	y := make([]float64, n*out*f)
	for bi := 0; bi < n; bi++ {
		for o := 0; o < out; o++ {
			for fi := 0; fi < f; fi++ {
				s := b[fi]
				for t := 0; t < ks; t++ {
					i := o*stride - before + t*dil
					if i < 0 || i >= steps {
						continue
					}
					for ci := 0; ci < c; ci++ {
						s += float64(x[(bi*steps+i)*c+ci]) * k[(t*c+ci)*f+fi]
					}
				}
				y[(bi*out+o)*f+fi] = s
			}
		}
	}
	return y, out
}

func TestConv1DAgainstReference(t *testing.T) {
	for i, c := range []struct {
		ks, f, stride, dil int
		padding            string
	}{
		{3, 2, 1, 1, "valid"}, {3, 3, 2, 1, "same"}, {2, 2, 1, 3, "causal"}, {4, 1, 1, 1, "causal"}, {2, 2, 3, 1, "valid"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			n, steps, ch := 2, 9, 3
			l := layers.NewConv1D(c.f, c.ks, layers.WithStrides(c.stride), layers.WithDilationRate(c.dil), layers.WithPadding(c.padding))
			if _, err := layers.OutputShape(l, []ops.Shape{{-1, steps, ch}}); err != nil {
				t.Fatal(err)
			}
			k := make([]float64, c.ks*ch*c.f)
			for j := range k {
				k[j] = math.Sin(float64(j)*0.9) * 0.5
			}
			b := make([]float64, c.f)
			for j := range b {
				b[j] = 0.1 * float64(j+1)
			}
			l.Kernel.Assign(f32(k))
			l.Bias.Assign(f32(b))
			x := make([]float32, n*steps*ch)
			for j := range x {
				x[j] = float32(math.Cos(float64(j) * 0.37))
			}
			want, out := conv1DRef(x, n, steps, ch, k, c.ks, c.f, b, c.stride, c.dil, c.padding)
			y := layertest.Forward(t, l, false, ops.Value{Shape: ops.Shape{n, steps, ch}, Data: x})
			if !y.Shape.Equal(ops.Shape{n, out, c.f}) {
				t.Fatalf("shape %v, want %v", y.Shape, ops.Shape{n, out, c.f})
			}
			layertest.AllClose(t, "Conv1D", y.Data, want, 1e-5)
			if got := l.GetConfig()["padding"]; got != c.padding {
				t.Errorf("config padding %v, want %q", got, c.padding)
			}
		})
	}
}

func TestConv1DErrors(t *testing.T) {
	for _, l := range []layers.Layer{
		layers.NewConv1D(0, 3),
		layers.NewConv1D(2, 3, layers.WithKernelSize(2, 2)),
		layers.NewConv1D(2, 3, layers.WithPadding("full")),
		layers.NewConv1D(2, 3, layers.WithStrides(2), layers.WithDilationRate(2)),
		layers.NewConv1D(2, 3, layers.WithPoolSize(2)),
	} {
		if l.Err() == nil {
			t.Errorf("%v: no error", l.GetConfig())
		} else if !strings.Contains(l.Err().Error(), "Conv1D") {
			t.Errorf("error %q does not name the layer", l.Err())
		}
	}
	if _, err := layers.OutputShape(layers.NewConv1D(2, 3), []ops.Shape{{-1, 4, 4, 2}}); err == nil {
		t.Error("rank-4 input: no error")
	}
	if _, err := layers.OutputShape(layers.NewConv1D(2, 5), []ops.Shape{{-1, 3, 2}}); err == nil {
		t.Error("input shorter than the kernel: no error")
	}
}
