package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestConv2DTransposeConformance(t *testing.T) {
	layertest.Run(t, layers.NewConv2DTranspose(4, 3), ops.Shape{2, 4, 5, 3}, ops.Shape{2, 6, 7, 4}, 3*3*4*3+4)
	layertest.Run(t, layers.NewConv2DTranspose(2, 3, layers.WithStrides(2), layers.WithPadding("same"), layers.WithActivation("tanh")),
		ops.Shape{2, 3, 4, 2}, ops.Shape{2, 6, 8, 2}, 3*3*2*2+2)
	layertest.Run(t, layers.NewConv2DTranspose(3, 2, layers.WithStrides(3, 2), layers.WithOutputPadding(1), layers.WithUseBias(false)),
		ops.Shape{1, 3, 3, 2}, ops.Shape{1, 9, 7, 3}, 2*2*3*2)
	layertest.Run(t, layers.NewConv2DTranspose(2, 0, layers.WithKernelSize(3, 1), layers.WithDilationRate(2), layers.WithPadding("same")),
		ops.Shape{1, 4, 4, 2}, ops.Shape{1, 4, 4, 2}, 3*1*2*2+2)
}

// TestConv2DTransposeTransposesConv2D: for a kernel w, the transposed
// convolution is the adjoint of the convolution with w: for all x and z,
// <conv(z, w), x> = <z, convT(x, w)>.
func TestConv2DTransposeTransposesConv2D(t *testing.T) {
	for _, pad := range []string{"same", "valid"} {
		ct := layers.NewConv2DTranspose(3, 3, layers.WithStrides(2), layers.WithPadding(pad), layers.WithUseBias(false))
		if _, err := layers.OutputShape(ct, []ops.Shape{{-1, 4, 4, 2}}); err != nil {
			t.Fatal(err)
		}
		w := ct.Kernel.Data(0)
		x := make([]float32, 1*4*4*2)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)))
		}
		y := layertest.Forward(t, ct, false, ops.Value{Shape: ops.Shape{1, 4, 4, 2}, Data: x})
		z := make([]float32, y.Shape.Size())
		for i := range z {
			z[i] = float32(math.Cos(float64(i) * 0.3))
		}
		conv := layers.NewConv2D(2, 3, layers.WithStrides(2), layers.WithPadding(pad), layers.WithUseBias(false))
		if _, err := layers.OutputShape(conv, []ops.Shape{{-1, y.Shape[1], y.Shape[2], 3}}); err != nil {
			t.Fatal(err)
		}
		if err := conv.Kernel.Assign(w); err != nil { // (kh, kw, 3, 2): in 3, out 2
			t.Fatal(err)
		}
		cz := layertest.Forward(t, conv, false, ops.Value{Shape: y.Shape, Data: z})
		var a, b float64
		for i := range x {
			a += float64(cz.Data[i]) * float64(x[i])
		}
		for i := range z {
			b += float64(z[i]) * float64(y.Data[i])
		}
		if math.Abs(a-b) > 1e-4*math.Max(1, math.Abs(a)) {
			t.Errorf("%s: <conv(z), x> = %v but <z, convT(x)> = %v", pad, a, b)
		}
	}
}

// TestConvAutoencoderSummary: the parameter counts of keras.io's
// convolutional autoencoder, computed by hand as Keras reports them
// (Total params: 28,353): Conv2D kh*kw*in*out + out, Conv2DTranspose
// kh*kw*filters*in + filters.
func TestConvAutoencoderSummary(t *testing.T) {
	m, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithPadding("same"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(layers.WithPadding("same")),
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithPadding("same")),
		layers.NewMaxPooling2D(layers.WithPadding("same")),
		layers.NewConv2DTranspose(32, 3, layers.WithStrides(2), layers.WithActivation("relu"), layers.WithPadding("same")),
		layers.NewConv2DTranspose(32, 3, layers.WithStrides(2), layers.WithActivation("relu"), layers.WithPadding("same")),
		layers.NewConv2D(1, 3, layers.WithActivation("sigmoid"), layers.WithPadding("same")),
	)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	conv1 := 3*3*1*32 + 32
	conv2 := 3*3*32*32 + 32
	convT := 3*3*32*32 + 32
	out := 3*3*32*1 + 1
	total := conv1 + conv2 + 2*convT + out
	if total != 28353 {
		t.Fatalf("hand count %d", total)
	}
	for _, want := range []string{"Total params: 28,353", "(None, 14, 14, 32)", "(None, 28, 28, 32)", "(None, 28, 28, 1)", "9248"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestConv2DTransposeErrors(t *testing.T) {
	for _, l := range []layers.Layer{
		layers.NewConv2DTranspose(0, 3),
		layers.NewConv2DTranspose(2, 3, layers.WithOutputPadding(1)), // not below stride 1
		layers.NewConv2DTranspose(2, 3, layers.WithStrides(2), layers.WithOutputPadding(1, 2, 3)),
		layers.NewConv2DTranspose(2, 3, layers.WithStrides(2), layers.WithDilationRate(2)),
		layers.NewConv2DTranspose(2, 3, layers.WithInterpolation("nearest")),
	} {
		if l.Err() == nil {
			t.Errorf("%v: no error", l.GetConfig())
		}
	}
	if _, err := layers.OutputShape(layers.NewConv2DTranspose(2, 2, layers.WithStrides(2), layers.WithPadding("same"), layers.WithOutputPadding(0)),
		[]ops.Shape{{-1, 3, 3, 2}}); err == nil {
		t.Error("output size whose convolution is not the input: no error")
	}
}
