package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

var activationRefs = map[string]func(float64) float64{
	"linear":   func(v float64) float64 { return v },
	"":         func(v float64) float64 { return v },
	"relu":     func(v float64) float64 { return math.Max(v, 0) },
	"sigmoid":  func(v float64) float64 { return 1 / (1 + math.Exp(-v)) },
	"tanh":     math.Tanh,
	"softplus": func(v float64) float64 { return math.Log1p(math.Exp(v)) },
}

func TestActivationConformance(t *testing.T) {
	for _, name := range []string{"linear", "relu", "sigmoid", "tanh", "softmax", "softplus"} {
		layertest.Run(t, layers.NewActivation(name), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
	}
	layertest.Run(t, layers.NewActivation("relu"), ops.Shape{2, 3, 3, 2}, ops.Shape{2, 3, 3, 2}, 0)
}

func TestActivationValues(t *testing.T) {
	x := []float32{-30, -4, -1, -0.5, 0, 0.25, 1, 3, 30}
	for name, f := range activationRefs {
		y := layertest.Forward(t, layers.NewActivation(name), false, ops.Value{Shape: ops.Shape{1, len(x)}, Data: x})
		want := make([]float64, len(x))
		for i, v := range x {
			want[i] = f(float64(v))
		}
		layertest.AllClose(t, "activation "+name, y.Data, want, 1e-6)
	}
	// softmax over the last axis
	y := layertest.Forward(t, layers.NewActivation("softmax"), false, ops.Value{Shape: ops.Shape{3, 3}, Data: x})
	layertest.AllClose(t, "activation softmax", y.Data, softmaxRef(x, 3), 1e-6)
}

func TestActivationConfig(t *testing.T) {
	if a := layers.NewActivation("tanh").GetConfig()["activation"]; a != "tanh" {
		t.Errorf("activation %v", a)
	}
	if a := layers.NewActivation("").GetConfig()["activation"]; a != "linear" {
		t.Errorf("activation %v, want linear", a)
	}
}
