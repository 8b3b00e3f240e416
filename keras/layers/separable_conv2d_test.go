package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestSeparableConv2DConformance(t *testing.T) {
	// depthwise kh*kw*in*mult, pointwise in*mult*filters, bias filters
	layertest.Run(t, layers.NewSeparableConv2D(4, 3), ops.Shape{2, 6, 6, 3}, ops.Shape{2, 4, 4, 4}, 3*3*3+3*4+4)
	layertest.Run(t, layers.NewSeparableConv2D(2, 3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithStrides(2),
		layers.WithActivation("tanh")), ops.Shape{1, 5, 5, 2}, ops.Shape{1, 3, 3, 2}, 3*3*2*2+2*2*2+2)
	layertest.Run(t, layers.NewSeparableConv2D(3, 3, layers.WithDilationRate(2), layers.WithUseBias(false)), ops.Shape{1, 7, 7, 2}, ops.Shape{1, 3, 3, 3}, 3*3*2+2*3)
}

func TestSeparableConv2DIsDepthwiseThenPointwise(t *testing.T) {
	sep := layers.NewSeparableConv2D(3, 3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithUseBias(false))
	dw := layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithUseBias(false))
	pw := layers.NewConv2D(3, 1, layers.WithUseBias(false))
	in := []ops.Shape{{-1, 5, 4, 2}}
	for _, l := range []layers.Layer{sep, dw} {
		if _, err := layers.OutputShape(l, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := layers.OutputShape(pw, []ops.Shape{{-1, 5, 4, 4}}); err != nil {
		t.Fatal(err)
	}
	dw.DepthwiseKernel.Assign(sep.DepthwiseKernel.Data(0))
	pw.Kernel.Assign(sep.PointwiseKernel.Data(0))
	x := ops.Value{Shape: ops.Shape{2, 5, 4, 2}, Data: make([]float32, 2*5*4*2)}
	for i := range x.Data {
		x.Data[i] = float32(i%7) - 3
	}
	got := layertest.Forward(t, sep, false, x)
	mid := layertest.Forward(t, dw, false, x)
	want := layertest.Forward(t, pw, false, mid)
	w := make([]float64, len(want.Data))
	for i, v := range want.Data {
		w[i] = float64(v)
	}
	layertest.AllClose(t, "SeparableConv2D", got.Data, w, 1e-5)
}

func TestSeparableConv2DErrors(t *testing.T) {
	for _, l := range []layers.Layer{
		layers.NewSeparableConv2D(0, 3),
		layers.NewSeparableConv2D(2, 3, layers.WithDepthMultiplier(0)),
		layers.NewSeparableConv2D(2, 3, layers.WithStrides(2), layers.WithDilationRate(2)),
		layers.NewSeparableConv2D(2, 3, layers.WithOutputPadding(1)),
	} {
		if l.Err() == nil {
			t.Errorf("%v: no error", l.GetConfig())
		}
	}
}
