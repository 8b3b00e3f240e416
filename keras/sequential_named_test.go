package keras

import (
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestNewNamedSequential: the name is the model's, and the nested
// model's row in its outer model, with its layers' weights.
func TestNewNamedSequential(t *testing.T) {
	layers.ClearSession()
	stem, err := NewNamedSequential("net_stem", layers.NewConv2D(4, 2, layers.WithStrides(2)), layers.NewLayerNormalization())
	if err != nil {
		t.Fatal(err)
	}
	if stem.Name() != "net_stem" {
		t.Errorf("name %q", stem.Name())
	}
	in := layers.Input([]int{8, 8, 3})
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{stem.Apply(in)})
	if err != nil {
		t.Fatal(err)
	}
	ls := m.Layers()
	if len(ls) != 2 || ls[1].Name() != "net_stem" || ls[1].ClassName() != "Sequential" || len(ls[1].Weights()) != 4 {
		t.Errorf("layers %v", ls)
	}
	if _, err := NewNamedSequential("bad", layers.NewDense(-1)); err == nil {
		t.Error("a bad layer: no error")
	}
}
