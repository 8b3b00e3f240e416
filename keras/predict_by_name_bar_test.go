package keras_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// TestPredictByNameBarOnce: PredictByName of a two-input, two-output model
// on 8 examples prints its one-batch bar line once without a terminal
// (issue 36 saw "1/1" twice), and gives every output by name.
func TestPredictByNameBarOnce(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(1)
	a := layers.Input([]int{4}, layers.WithName("a"))
	b := layers.Input([]int{3}, layers.WithName("b"))
	h := layers.Apply(layers.NewConcatenate(), layers.Apply(layers.NewDense(5), a), layers.Apply(layers.NewDense(5), b))
	outA := layers.Apply(layers.NewDense(3, layers.WithName("out_a")), h)
	outB := layers.Apply(layers.NewDense(1, layers.WithName("out_b")), h)
	model, err := keras.NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{outA, outB})
	if err != nil {
		t.Fatal(err)
	}
	x := map[string]*tensor.Dense{
		"a": tensor.New(tensor.WithShape(8, 4), tensor.Of(tensor.Float32)),
		"b": tensor.New(tensor.WithShape(8, 3), tensor.Of(tensor.Float32)),
	}
	var out bytes.Buffer
	preds, err := model.PredictByName(x, keras.PredictConfig{Verbose: 1, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "1/1"); n != 1 {
		t.Errorf("the bar line 1/1 printed %d times:\n%s", n, out.String())
	}
	if len(preds) != 2 || preds["out_a"] == nil || preds["out_b"] == nil {
		t.Fatalf("outputs %v, want out_a and out_b", preds)
	}
	if sa, sb := preds["out_a"].Shape(), preds["out_b"].Shape(); sa[0] != 8 || sa[1] != 3 || sb[0] != 8 || sb[1] != 1 {
		t.Errorf("shapes %v %v, want (8, 3) and (8, 1)", sa, sb)
	}
}
