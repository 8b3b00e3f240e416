package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestGaussianDropoutConformance(t *testing.T) {
	layertest.Run(t, layers.NewGaussianDropout(0.3), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
}

// TestGaussianDropoutTraining: in training the input is multiplied by
// noise of mean 1 and standard deviation sqrt(rate/(1-rate)).
func TestGaussianDropoutTraining(t *testing.T) {
	const n, rate = 20000, 0.2
	x := make([]float32, n)
	for i := range x {
		x[i] = 2
	}
	in := ops.Value{Shape: ops.Shape{100, n / 100}, Data: x}
	if y := layertest.Forward(t, layers.NewGaussianDropout(rate), false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	y := layertest.Forward(t, layers.NewGaussianDropout(rate, layers.WithSeed(2)), true, in)
	f := make([]float64, n)
	for i := range f {
		f[i] = float64(y.Data[i]) / 2
	}
	m, s := meanStd(f)
	want := math.Sqrt(rate / (1 - rate))
	if math.Abs(m-1) > 4*want/math.Sqrt(n) || math.Abs(s-want) > 0.02 {
		t.Errorf("factor mean %.4f, std %.4f; want 1 and %.4f", m, s, want)
	}
	// rate 1 loads as in Keras but cannot train.
	l := layers.NewGaussianDropout(1, layers.WithName("gd1"))
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	tr := ops.NewTrace(true, 0, 1)
	xt := tr.Constant(ops.Shape{2, 2}, []float32{1, 2, 3, 4})
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 2}}); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			e, _ := recover().(*ops.Error)
			if e == nil {
				t.Error("rate 1 trained")
				return
			}
			wantErr(t, e, "gd1", "infinite")
		}()
		l.Call([]ops.Tensor{xt}, true)
	}()
}
