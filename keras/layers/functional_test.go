package layers_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestInputNames(t *testing.T) {
	layers.ClearSession()
	a, b, c := layers.Input([]int{3}), layers.Input([]int{3}), layers.Input([]int{3}, layers.WithName("pixels"))
	d := layers.Input([]int{3})
	for i, want := range []string{"input_1", "input_2", "pixels", "input_3"} {
		if got := []*layers.KerasTensor{a, b, c, d}[i].Node().Layer.Name(); got != want {
			t.Errorf("input %d named %q, want %q", i, got, want)
		}
	}
	layers.ClearSession()
	if got := layers.Input([]int{1}).Node().Layer.Name(); got != "input_1" {
		t.Errorf("after ClearSession: %q, want input_1", got)
	}
}

func TestInput(t *testing.T) {
	x := layers.Input([]int{28, 28, 1})
	if x.Err() != nil || !x.Shape().Equal(ops.Shape{-1, 28, 28, 1}) {
		t.Fatalf("shape %v, err %v", x.Shape(), x.Err())
	}
	n := x.Node()
	if !n.IsInput || n.Output != x || len(n.Inputs) != 0 || n.Layer.ClassName() != "InputLayer" {
		t.Errorf("node %+v", n)
	}
	if got := fmt.Sprint(n.Layer.GetConfig()["batch_input_shape"]); got != "[<nil> 28 28 1]" {
		t.Errorf("batch_input_shape %s", got)
	}
	if s := n.Layer.(*layers.InputLayer).OutputShape(); !s.Equal(ops.Shape{-1, 28, 28, 1}) {
		t.Errorf("OutputShape %v", s)
	}
	// Shape returns a copy.
	x.Shape()[1] = 5
	if x.Shape()[1] != 28 {
		t.Error("Shape exposes the tensor's shape")
	}
	wantErr(t, layers.Input([]int{28, 0}, layers.WithName("bad")).Err(), "Input", "bad", "non-positive")
	wantErr(t, layers.Input([]int{2}, layers.WithActivation("relu")).Err(), "InputLayer", "activation")
}

func TestApplyChain(t *testing.T) {
	in := layers.Input([]int{28, 28, 1})
	steps := []struct {
		l    layers.Layer
		want ops.Shape
	}{
		{layers.NewRescaling(1.0 / 255), ops.Shape{-1, 28, 28, 1}},
		{layers.NewConv2D(8, 3, layers.WithActivation("relu")), ops.Shape{-1, 26, 26, 8}},
		{layers.NewMaxPooling2D(), ops.Shape{-1, 13, 13, 8}},
		{layers.NewConv2D(16, 3, layers.WithPadding("same"), layers.WithStrides(2)), ops.Shape{-1, 7, 7, 16}},
		{layers.NewAveragePooling2D(layers.WithPadding("same")), ops.Shape{-1, 4, 4, 16}},
		{layers.NewFlatten(), ops.Shape{-1, 256}},
		{layers.NewDropout(0.5), ops.Shape{-1, 256}},
		{layers.NewDense(32), ops.Shape{-1, 32}},
		{layers.NewReLU(layers.WithMaxValue(6)), ops.Shape{-1, 32}},
		{layers.NewReshape([]int{4, -1}), ops.Shape{-1, 4, 8}},
		{layers.NewDense(10), ops.Shape{-1, 4, 10}},
		{layers.NewSoftmax(), ops.Shape{-1, 4, 10}},
		{layers.NewActivation("tanh"), ops.Shape{-1, 4, 10}},
	}
	x := in
	for _, s := range steps {
		y := layers.Apply(s.l, x)
		if y.Err() != nil {
			t.Fatalf("%s: %v", s.l.ClassName(), y.Err())
		}
		if !y.Shape().Equal(s.want) {
			t.Errorf("%s: shape %v, want %v", s.l.ClassName(), y.Shape(), s.want)
		}
		n := y.Node()
		if n.Layer != s.l || len(n.Inputs) != 1 || n.Inputs[0] != x || n.Output != y || n.Index != 0 || n.IsInput {
			t.Errorf("%s: node %+v", s.l.ClassName(), n)
		}
		x = y
	}
}

func TestApplySharedLayer(t *testing.T) {
	d := layers.NewDense(4)
	a, b := layers.Input([]int{3}), layers.Input([]int{3})
	ya, yb := layers.Apply(d, a), layers.Apply(d, b)
	if ya.Node().Index != 0 || yb.Node().Index != 1 {
		t.Errorf("call indexes %d, %d; want 0, 1", ya.Node().Index, yb.Node().Index)
	}
	if len(d.Weights()) != 2 {
		t.Errorf("a shared layer has %d weights, want 2", len(d.Weights()))
	}
	// A second call on another last dimension is an error.
	wantErr(t, layers.Apply(d, layers.Input([]int{5})).Err(), "Dense", d.Name(), "(None, 5)")
	layers.ResetCallCounts()
	if i := layers.Apply(d, a).Node().Index; i != 0 {
		t.Errorf("after ResetCallCounts: index %d", i)
	}
}

func TestApplyErrors(t *testing.T) {
	// The first error is kept through later calls.
	bad := layers.Apply(layers.NewConv2D(2, 3, layers.WithName("c")), layers.Input([]int{8}))
	wantErr(t, bad.Err(), "Conv2D", `"c"`, "(None, 8)")
	later := layers.Apply(layers.NewDense(3), layers.Apply(layers.NewFlatten(), bad))
	if later.Err() != bad.Err() {
		t.Errorf("later error %v, want the first %v", later.Err(), bad.Err())
	}
	wantErr(t, layers.Apply(layers.NewDense(3, layers.WithName("dn")), nil).Err(), "Dense", "dn", "nil input")
	// A valid input: no error; a too small one for a valid convolution: error.
	wantErr(t, layers.Apply(layers.NewConv2D(2, 5, layers.WithName("c5")), layers.Input([]int{3, 3, 1})).Err(), "Conv2D", "c5", "(None, 3, 3, 1)")
}

func TestOutputShapeKeepsKnownBatch(t *testing.T) {
	s, err := layers.OutputShape(layers.NewDense(2), []ops.Shape{{5, 3}})
	if err != nil || !s.Equal(ops.Shape{5, 2}) {
		t.Errorf("OutputShape = %v, %v; want (5, 2)", s, err)
	}
}
