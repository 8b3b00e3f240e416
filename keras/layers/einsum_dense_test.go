package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestEinsumDenseConformance(t *testing.T) {
	layertest.Run(t, layers.NewEinsumDense("ab,bc->ac", []int{4}, layers.WithBiasAxes("c")), ops.Shape{3, 5}, ops.Shape{3, 4}, 5*4+4)
	layertest.Run(t, layers.NewEinsumDense("abc,cde->abde", []int{-1, 2, 3}, layers.WithBiasAxes("de")), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 2, 3}, 4*6+6)
	layertest.Run(t, layers.NewEinsumDense("...b,bc->...c", []int{4}, layers.WithBiasAxes("c")), ops.Shape{2, 3, 5}, ops.Shape{2, 3, 4}, 5*4+4)
	layertest.Run(t, layers.NewEinsumDense("ab...,bc->ac...", []int{5}, layers.WithBiasAxes("c")), ops.Shape{2, 4, 3}, ops.Shape{2, 5, 3}, 4*5+5)
	layertest.Run(t, layers.NewEinsumDense("abcd,cde->abe", []int{-1, 4}), ops.Shape{2, 3, 2, 3}, ops.Shape{2, 3, 4}, 2*3*4)
}

// TestEinsumDenseIsDense: "ab,bc->ac" with a bias on c is a Dense layer.
func TestEinsumDenseIsDense(t *testing.T) {
	e := layers.NewEinsumDense("ab,bc->ac", []int{2}, layers.WithBiasAxes("c"), layers.WithKernelInitializer(layers.Ones()),
		layers.WithBiasInitializer(layers.Constant(0.5)))
	y := layertest.Forward(t, e, false, ops.Value{Shape: ops.Shape{2, 3}, Data: []float32{1, 2, 3, -1, 0, 4}})
	layertest.AllClose(t, "einsum dense", y.Data, []float64{6.5, 6.5, 3.5, 3.5}, 0)
}

func TestEinsumDenseErrors(t *testing.T) {
	for _, eq := range []string{"ab,bc", "a.b,bc->ac", "ab,bc,cd->ad", "...ab...,bc->ac"} {
		if err := layers.NewEinsumDense(eq, []int{2}).Err(); err == nil {
			t.Errorf("equation %q accepted", eq)
		}
	}
	if err := layers.NewEinsumDense("ab,bc->ac", []int{0}).Err(); err == nil {
		t.Error("output size 0 accepted")
	}
	in := layers.Input([]int{5})
	for _, c := range []struct {
		l    layers.Layer
		want string
	}{
		{layers.NewEinsumDense("ab,bc->ac", []int{-1}, layers.WithName("e1")), "no known size"},
		{layers.NewEinsumDense("ab,bc->ad", []int{3}, layers.WithName("e2")), "neither"},
		{layers.NewEinsumDense("ab,bc->ac", []int{3}, layers.WithName("e3"), layers.WithBiasAxes("x")), "bias axis"},
		{layers.NewEinsumDense("abc,cd->abd", []int{-1, 3}, layers.WithName("e4")), "names 3 input axes"},
		{layers.NewEinsumDense("ab,bc->ab", []int{4}, layers.WithName("e5")), "do not match"},
	} {
		wantErr(t, layers.Apply(c.l, in).Err(), c.l.Name(), c.want)
	}
}
