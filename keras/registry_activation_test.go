package keras

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// TestActivationLayersFromKerasConfig reads configs as Keras 3 writes them
// (and LeakyReLU's Keras 2 "alpha").
func TestActivationLayersFromKerasConfig(t *testing.T) {
	layers.ClearSession()
	l, err := LayerFromConfig("LeakyReLU", map[string]any{"name": "leaky_re_lu", "trainable": true, "dtype": "float32", "negative_slope": 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if s := l.GetConfig()["negative_slope"]; s != 0.2 {
		t.Errorf("LeakyReLU negative_slope %v, want 0.2", s)
	}
	l, err = LayerFromConfig("LeakyReLU", map[string]any{"name": "lr2", "alpha": 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if s := l.GetConfig()["negative_slope"]; s != 0.05 {
		t.Errorf("LeakyReLU from Keras 2 alpha: negative_slope %v, want 0.05", s)
	}
	l, err = LayerFromConfig("ELU", map[string]any{"name": "elu", "alpha": 0.7})
	if err != nil {
		t.Fatal(err)
	}
	if a := l.GetConfig()["alpha"]; a != 0.7 {
		t.Errorf("ELU alpha %v, want 0.7", a)
	}
	l, err = LayerFromConfig("PReLU", map[string]any{"name": "p_re_lu", "trainable": true, "dtype": "float32",
		"alpha_initializer": map[string]any{"module": "keras.initializers", "class_name": "Zeros", "config": map[string]any{}, "registered_name": nil},
		"alpha_regularizer": nil, "alpha_constraint": nil, "shared_axes": []any{1.0, 2.0}})
	if err != nil {
		t.Fatal(err)
	}
	if out := layers.Apply(l, layers.Input([]int{4, 5, 3})); out.Err() != nil {
		t.Fatal(out.Err())
	}
	if w := l.Weights(); len(w) != 1 || !strings.HasSuffix(w[0].Name(), "alpha") || !w[0].Shape().Equal(ops.Shape{1, 1, 3}) {
		t.Errorf("PReLU weights %v, want one alpha of 3 values (1, 1, 3)", w)
	}
	if _, err := LayerFromConfig("PReLU", map[string]any{"name": "p", "alpha_constraint": map[string]any{"class_name": "Clip"}}); err == nil {
		t.Error("an unknown alpha_constraint accepted")
	}
}

// TestSaveLoadActivationLayers: a model with the activation layers and
// names saves and loads with its PReLU slopes.
func TestSaveLoadActivationLayers(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(5)
	in := layers.Input([]int{6})
	x := layers.Apply(layers.NewDense(8, layers.WithActivation("gelu")), in)
	x = layers.Apply(layers.NewPReLU(layers.WithAlphaInitializer(layers.Constant(0.1))), x)
	x = layers.Apply(layers.NewDense(8, layers.WithActivation("swish")), x)
	x = layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)), x)
	x = layers.Apply(layers.NewELU(layers.WithAlpha(0.9)), x)
	x = layers.Apply(layers.NewActivation("mish"), x)
	x = layers.Apply(layers.NewActivation("log_softmax"), x)
	out := layers.Apply(layers.NewDense(3, layers.WithActivation("softmax")), x)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	svCompile(t, m, optimizers.NewAdam())
	xs, ys := svData(16, []int{6}, 3, 2)
	svFit(t, m, xs, ys, 1, 0)
	path := filepath.Join(t.TempDir(), "act.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	svSameWeights(t, "loaded", m, l)
}
