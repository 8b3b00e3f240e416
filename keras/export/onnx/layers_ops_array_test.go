package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestOperationConstantArrays: a constant array argument (EfficientNet's
// ImageNet stem multiplies the pixels by one scale per channel) is a
// constant of its shape in Keras' layout, and reordered like the tensor
// when that is channels-first: Keras (1, 1, 4, 3) of (width, channels) is
// (3, 1, 4) against NCHW, element [c][0][w] = a[0][w][c].
func TestOperationConstantArrays(t *testing.T) {
	x := layers.Input([]int{5, 4, 3})
	scale := layers.OpArray{Shape: []int{3}, Values: []float64{2, 3, 4}, Dtype: "float32"}
	h := layers.CallOp("Multiply", nil, x, scale)
	h = layers.Apply(layers.NewConv2D(3, 1), h)
	wc := make([]float64, 12)
	for i := range wc {
		wc[i] = float64(i)
	}
	y := layers.CallOp("Add", nil, layers.OpArray{Shape: []int{1, 1, 4, 3}, Values: wc, Dtype: "float32"}, h)
	d := export(t, ins(x), ins(y))
	want := []string{"Mul", "Transpose", "Conv", "Add", "Transpose"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	s := d.inits[d.nodes[0].inputs[1]]
	if d.nodes[0].inputs[0] != d.inputs[0].name || !slices.Equal(s.dims, []int64{3}) || s.float(2) != 4 {
		t.Errorf("channel scales: inputs %v, dims %v", d.nodes[0].inputs, s.dims)
	}
	a := d.inits[d.nodes[3].inputs[0]]
	if !slices.Equal(a.dims, []int64{3, 1, 4}) {
		t.Fatalf("channels-first constant dims %v", a.dims)
	}
	for c := range 3 {
		for w := range 4 {
			if got := a.float(c*4 + w); got != float32(wc[w*3+c]) {
				t.Errorf("constant[%d][0][%d] = %v, want a[0][%d][%d] = %v", c, w, got, w, c, wc[w*3+c])
			}
		}
	}
	// An array of the tensor's rank or more would broadcast over the batch.
	z := layers.Input([]int{3})
	big := layers.CallOp("Multiply", nil, z, layers.OpArray{Shape: []int{2, 3}, Values: []float64{1, 2, 3, 4, 5, 6}, Dtype: "float32"})
	_, err := Marshal(graphOf(t, ins(z), ins(big)))
	var le *LayerError
	if !errors.As(err, &le) || le.Class != "Multiply" || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "batch axis") {
		t.Errorf("a (2, 3) constant against (batch, 3): error %v", err)
	}
}
