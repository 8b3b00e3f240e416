package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// softmaxRef normalises each run of n values, in float64.
func softmaxRef(x []float32, n int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x); r += n {
		m := math.Inf(-1)
		for _, v := range x[r : r+n] {
			m = math.Max(m, float64(v))
		}
		s := 0.0
		for i, v := range x[r : r+n] {
			out[r+i] = math.Exp(float64(v) - m)
			s += out[r+i]
		}
		for i := range n {
			out[r+i] /= s
		}
	}
	return out
}

func TestSoftmaxConformance(t *testing.T) {
	layertest.Run(t, layers.NewSoftmax(), ops.Shape{3, 5}, ops.Shape{3, 5}, 0)
	layertest.Run(t, layers.NewSoftmax(layers.WithAxis(-1)), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 0)
	layertest.Run(t, layers.NewSoftmax(layers.WithAxis(2)), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 0)
}

func TestSoftmaxValues(t *testing.T) {
	// Hand-computed: softmax(0, ln 2, ln 5) = (1, 2, 5)/8.
	y := layertest.Forward(t, layers.NewSoftmax(), false, ops.Value{Shape: ops.Shape{1, 3}, Data: []float32{0, float32(math.Ln2), float32(math.Log(5))}})
	layertest.AllClose(t, "softmax", y.Data, []float64{0.125, 0.25, 0.625}, 1e-6)

	// Large logits must not overflow; rows sum to one.
	x := []float32{1000, 1001, 1002, -1000, 0, 1000, 3, 3, 3, -5, 2, 7}
	y = layertest.Forward(t, layers.NewSoftmax(), false, ops.Value{Shape: ops.Shape{2, 2, 3}, Data: x})
	layertest.AllClose(t, "softmax", y.Data, softmaxRef(x, 3), 1e-6)
	for r := 0; r < len(x); r += 3 {
		if s := y.Data[r] + y.Data[r+1] + y.Data[r+2]; math.Abs(float64(s)-1) > 1e-6 {
			t.Errorf("row %d sums to %v", r/3, s)
		}
	}
}

func TestSoftmaxAxis(t *testing.T) {
	_, err := layers.OutputShape(layers.NewSoftmax(layers.WithAxis(1), layers.WithName("sm")), []ops.Shape{{-1, 3, 4}})
	wantErr(t, err, "Softmax", "sm", "axis 1")
	if a := layers.NewSoftmax().GetConfig()["axis"]; a != -1 {
		t.Errorf("axis %v", a)
	}
}
