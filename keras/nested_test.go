package keras_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

func randomData(seed uint64, n, dim, classes int) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 1))
	x, y := make([]float32, n*dim), make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for i := range y {
		y[i] = float32(r.IntN(classes))
	}
	return tensor.New(tensor.WithShape(n, dim), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// A Sequential nested in a Sequential trains as the same layers
// flattened into one Sequential: equal histories and weights; its summary
// shows the nested model as one row with its parameter count.
func TestNestedSequentialEqualsFlattened(t *testing.T) {
	layers.ClearSession()
	inner := keras.MustSequential(layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)), layers.NewDense(3))
	outer := keras.MustSequential(inner.AsLayer(), layers.NewDense(2, layers.WithActivation("softmax")))
	flat := keras.MustSequential(layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)), layers.NewDense(3),
		layers.NewDense(2, layers.WithActivation("softmax")))
	if !outer.Built() {
		t.Fatal("a Sequential starting with a built model is not built")
	}
	if err := flat.SetWeights(outer.GetWeights()); err != nil {
		t.Fatal(err)
	}
	x, y := randomData(7, 40, 4, 2)
	var hists []*keras.History
	for _, m := range []*keras.Model{outer, flat} {
		if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)),
			Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"}}); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(x, y, keras.FitConfig{Epochs: 3, BatchSize: 8, NoShuffle: true, Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		hists = append(hists, h)
	}
	for k, want := range hists[1].History {
		if fmt.Sprint(hists[0].History[k]) != fmt.Sprint(want) {
			t.Errorf("%s nested %v, flattened %v", k, hists[0].History[k], want)
		}
	}
	ow, fw := outer.GetWeights(), flat.GetWeights()
	for i := range fw {
		if fmt.Sprint(ow[i].Data()) != fmt.Sprint(fw[i].Data()) {
			t.Errorf("weight %d differs: nested %v, flattened %v", i, ow[i].Data(), fw[i].Data())
		}
	}
	// The nested model's weights are the outer model's: training the
	// outer model trained the inner one.
	if fmt.Sprint(inner.GetWeights()[0].Data()) != fmt.Sprint(ow[0].Data()) {
		t.Error("the inner model does not hold the trained weights")
	}
	s, err := outer.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	innerParams := 4*8 + 8 + 8*3 + 3
	if !strings.Contains(s, fmt.Sprintf("%s (Sequential)", inner.Name())) || !strings.Contains(s, fmt.Sprint(innerParams)) ||
		!strings.Contains(s, fmt.Sprintf("Total params: %d", innerParams+3*2+2)) || strings.Count(s, "(Dense)") != 1 {
		t.Errorf("summary does not show the nested model as one row of %d params:\n%s", innerParams, s)
	}
	t.Log("\n" + s)
}

// A frozen nested model keeps its weights through Fit; the outer model's
// other layers train.
func TestNestedFrozen(t *testing.T) {
	layers.ClearSession()
	base := keras.MustSequential(layers.NewDense(5, layers.WithActivation("tanh"), layers.WithInputShape(3)))
	base.SetTrainable(false)
	x := layers.Input([]int{3})
	out := layers.Apply(layers.NewDense(2, layers.WithActivation("softmax")), base.Apply(x))
	m, err := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.TrainableVariables()); n != 2 {
		t.Errorf("%d trainable variables, want the head's 2", n)
	}
	before := fmt.Sprint(base.GetWeights()[0].Data())
	head := fmt.Sprint(m.GetWeights()[2].Data())
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "sparse_categorical_crossentropy"}); err != nil {
		t.Fatal(err)
	}
	xd, yd := randomData(3, 16, 3, 2)
	if _, err := m.Fit(xd, yd, keras.FitConfig{Epochs: 2, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(base.GetWeights()[0].Data()) != before {
		t.Error("the frozen nested model's kernel changed")
	}
	if fmt.Sprint(m.GetWeights()[2].Data()) == head {
		t.Error("the head did not train")
	}
	if base.Trainable() {
		t.Error("Trainable() after SetTrainable(false)")
	}
}

// GetConfig and ModelFromConfig round-trip a model with a nested model,
// through JSON as in a file: the nested model comes back as one layer of
// class Sequential with the same parameter count; a nested model with two
// outputs is refused with an error naming it.
func TestNestedConfigAndErrors(t *testing.T) {
	layers.ClearSession()
	inner := keras.MustSequential(layers.NewDense(6, layers.WithInputShape(4)), layers.NewDense(3))
	x := layers.Input([]int{4})
	out := layers.Apply(layers.NewDense(1), inner.Apply(x))
	m, err := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := m.GetConfig()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m2, err := keras.ModelFromConfig(back)
	if err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, l := range m2.Layers() {
		classes = append(classes, l.ClassName())
	}
	if fmt.Sprint(classes) != "[InputLayer Sequential Dense]" {
		t.Errorf("rebuilt layers %v", classes)
	}
	if len(m2.Weights()) != len(m.Weights()) || len(m2.Weights()) != 6 {
		t.Errorf("rebuilt model has %d weights, want %d", len(m2.Weights()), len(m.Weights()))
	}

	a := layers.Input([]int{2})
	two, err := keras.NewModel([]*layers.KerasTensor{a}, []*layers.KerasTensor{
		layers.Apply(layers.NewDense(1), a), layers.Apply(layers.NewDense(1), a)}, keras.ModelName("two_heads"))
	if err != nil {
		t.Fatal(err)
	}
	if e := two.Apply(layers.Input([]int{2})).Err(); e == nil || !strings.Contains(e.Error(), "two_heads") {
		t.Errorf("a two-output model as a layer: %v", e)
	}
}

// A model with nested models saves and loads: the nested models come
// back as layers of class Sequential and Functional with their weights,
// and the loaded model predicts what the saved one did.
func TestNestedSaveLoad(t *testing.T) {
	layers.ClearSession()
	outer, _, _ := ensemble(t)
	x := ramp(0.1, 7, 5, 4)
	want, err := outer.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ensemble.keras")
	if err := outer.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, l := range loaded.Layers() {
		classes = append(classes, l.ClassName())
	}
	if fmt.Sprint(classes) != "[InputLayer Sequential Functional Add Dense]" {
		t.Errorf("loaded layers %v", classes)
	}
	got, err := loaded.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Data()) != fmt.Sprint(want.Data()) {
		t.Errorf("loaded model predicts %v, saved %v", got.Data(), want.Data())
	}
}

// A nested Sequential without an input shape is built by its first call,
// in a functional model or when the outer Sequential is built from data.
func TestNestedUnbuilt(t *testing.T) {
	layers.ClearSession()
	inner := keras.MustSequential(layers.NewDense(3, layers.WithActivation("relu")))
	y := inner.Apply(layers.Input([]int{5}))
	if y.Err() != nil || fmt.Sprint(y.Shape()) != "(None, 3)" || !inner.Built() {
		t.Fatalf("%v %v built %v", y.Err(), y.Shape(), inner.Built())
	}
	lazy := keras.MustSequential(layers.NewDense(4))
	outer := keras.MustSequential(lazy.AsLayer(), layers.NewDense(1))
	if outer.Built() || lazy.Built() {
		t.Fatal("built before any data")
	}
	_ = outer.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"})
	x, _ := randomData(2, 6, 7, 2)
	if _, err := outer.Fit(x, ramp(1, 3, 6, 1), keras.FitConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	if !lazy.Built() || lazy.Weights()[0].Shape()[0] != 7 || len(outer.Weights()) != 4 {
		t.Errorf("after Fit: built %v, %d weights", lazy.Built(), len(outer.Weights()))
	}
}
