package keras_test

import (
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/google/go-cmp/cmp"
)

func layerNames(m *keras.Model) []string {
	var names []string
	for _, l := range m.Layers() {
		names = append(names, l.Name())
	}
	return names
}

// TestLayerOrderResidual checks model.layers of a residual block against
// the order Keras' map_graph gives (worked out by hand from its rule: depth
// from the outputs, deepest first; ties by first meeting in a walk from the
// outputs). The shortcut's layers sit among the main path's layers of the
// same depth, not after the whole main path as a plain depth-first order
// would put them.
func TestLayerOrderResidual(t *testing.T) {
	layers.ClearSession()
	in := layers.Input([]int{4}, layers.WithName("in"))
	short := layers.Apply(layers.NewDense(4, layers.WithName("short")), in)
	short = layers.Apply(layers.NewBatchNormalization(layers.WithName("short_bn")), short)
	x := layers.Apply(layers.NewDense(4, layers.WithName("m1")), in)
	x = layers.Apply(layers.NewDense(4, layers.WithName("m2")), x)
	x = layers.Apply(layers.NewBatchNormalization(layers.WithName("m3")), x)
	out := layers.AddTensors(x, short)
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"in", "m1", "m2", "short", "m3", "short_bn", out.Node().Layer.Name()}
	if diff := cmp.Diff(want, layerNames(m)); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	// Weights follow the layer order, as model.weights does in Keras.
	if got := m.TrainableVariables()[4].Name(); got != "short/kernel" {
		t.Errorf("5th trainable variable is %q, want short/kernel", got)
	}
}

// TestLayerOrderShallowInput: an input that joins near the output comes
// after the layers of the deeper input, as in Keras.
func TestLayerOrderShallowInput(t *testing.T) {
	layers.ClearSession()
	a := layers.Input([]int{4}, layers.WithName("a"))
	b := layers.Input([]int{2}, layers.WithName("b"))
	h := layers.Apply(layers.NewDense(4, layers.WithName("h1")), a)
	h = layers.Apply(layers.NewDense(4, layers.WithName("h2")), h)
	c := layers.ConcatenateTensors(-1, h, b)
	m, err := keras.NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{c})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "h1", "h2", "b", c.Node().Layer.Name()}
	if diff := cmp.Diff(want, layerNames(m)); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
}

// TestLayerOrderUnconnectedInputs: inputs no output depends on come at
// depth 0, before the output layer, in the order of the model's inputs,
// every time (the order must not follow map iteration).
func TestLayerOrderUnconnectedInputs(t *testing.T) {
	for range 20 {
		layers.ClearSession()
		a := layers.Input([]int{4}, layers.WithName("a"))
		u1 := layers.Input([]int{1}, layers.WithName("u1"))
		u2 := layers.Input([]int{1}, layers.WithName("u2"))
		u3 := layers.Input([]int{1}, layers.WithName("u3"))
		out := layers.Apply(layers.NewDense(2, layers.WithName("out")), a)
		m, err := keras.NewModel([]*layers.KerasTensor{a, u3, u1, u2}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"a", "u3", "u1", "u2", "out"}
		if diff := cmp.Diff(want, layerNames(m)); diff != "" {
			t.Fatalf("layers (-want +got):\n%s", diff)
		}
	}
}
