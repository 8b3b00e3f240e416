package keras_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// nestedCase is one case of testdata/multi_io/nested.json, written by
// tools/keras_reference/multi_io_vectors.py from Keras 3.
type nestedCase struct {
	Name               string
	FreezeBranch       bool `json:"freeze_branch"`
	LR                 float64
	BatchSize          int `json:"batch_size"`
	Epochs             int
	X, Y               []float32
	Layers             [][]any
	TrainableParams    int                    `json:"trainable_params"`
	NonTrainableParams int                    `json:"non_trainable_params"`
	InitialWeights     map[string][][]float32 `json:"initial_weights"`
	History            map[string][]float64
	Predict            []float32
	FinalWeights       map[string][][]float32 `json:"final_weights"`
}

// leafLayers lists a model's layers, those of nested models in their place.
func leafLayers(m *keras.Model) []layers.Layer {
	var out []layers.Layer
	for _, l := range m.Layers() {
		if ml, ok := l.(*keras.ModelLayer); ok {
			out = append(out, leafLayers(ml.Model())...)
			continue
		}
		out = append(out, l)
	}
	return out
}

// ensemble is nested_case of multi_io_vectors.py: a Sequential "inner"
// and a functional "branch" called on one input, added, then a Dense head.
func ensemble(t *testing.T) (outer, inner, branch *keras.Model) {
	t.Helper()
	inner = keras.MustSequential(
		layers.NewDense(6, layers.WithActivation("relu"), layers.WithName("inner_d1"), layers.WithInputShape(4)),
		layers.NewDense(3, layers.WithName("inner_d2")))
	bi := layers.Input([]int{4}, layers.WithName("branch_in"))
	branch, err := keras.NewModel([]*layers.KerasTensor{bi},
		[]*layers.KerasTensor{layers.Apply(layers.NewDense(3, layers.WithActivation("tanh"), layers.WithName("branch_d")), bi)},
		keras.ModelName("branch"))
	if err != nil {
		t.Fatal(err)
	}
	x := layers.Input([]int{4}, layers.WithName("x"))
	y := layers.Apply(layers.NewAdd(layers.WithName("add")), inner.Apply(x), branch.Apply(x))
	out := layers.Apply(layers.NewDense(2, layers.WithActivation("softmax"), layers.WithName("head")), y)
	outer, err = keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{out}, keras.ModelName("ensemble"))
	if err != nil {
		t.Fatal(err)
	}
	return outer, inner, branch
}

// Keras 3's fit of a functional model that calls a nested Sequential and
// a nested functional model on one input, one of them frozen or not: the
// layer rows (name, class, parameter count, as Keras' summary shows
// them), the parameter totals, the History, the predictions and every
// leaf layer's trained weights match.
func TestNestedModelsMatchKeras(t *testing.T) {
	for _, c := range kerasvectors.Read[nestedCase](t, "testdata/multi_io/nested.json") {
		t.Run(c.Name, func(t *testing.T) {
			layers.ClearSession()
			outer, inner, branch := ensemble(t)
			var rows [][]any
			for _, l := range outer.Layers() {
				n := 0
				for _, w := range l.Weights() {
					n += w.Shape().Size()
				}
				name := l.Name()
				if l == layers.Layer(inner.AsLayer()) {
					name = "inner" // NewSequential names it "sequential"
				}
				rows = append(rows, []any{name, l.ClassName(), float64(n)})
			}
			if fmt.Sprint(rows) != fmt.Sprint(c.Layers) {
				t.Errorf("layers %v, Keras %v", rows, c.Layers)
			}
			for _, l := range leafLayers(outer) {
				for i, v := range l.Weights() {
					if err := v.Assign(append([]float32(nil), c.InitialWeights[l.Name()][i]...)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if c.FreezeBranch {
				branch.SetTrainable(false)
			}
			if err := outer.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(c.LR)),
				Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"}}); err != nil {
				t.Fatal(err)
			}
			tr, non := 0, 0
			for _, v := range outer.TrainableVariables() {
				tr += v.Shape().Size()
			}
			for _, v := range outer.NonTrainableVariables() {
				non += v.Shape().Size()
			}
			if tr != c.TrainableParams || non != c.NonTrainableParams {
				t.Errorf("trainable %d, non-trainable %d; Keras %d, %d", tr, non, c.TrainableParams, c.NonTrainableParams)
			}
			s, err := outer.SummaryString()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(s, "branch (Functional)") || !strings.Contains(s, fmt.Sprintf("Non-trainable params: %d", c.NonTrainableParams)) {
				t.Errorf("summary:\n%s", s)
			}
			n := len(c.Y)
			x := tensor.New(tensor.WithShape(n, 4), tensor.WithBacking(append([]float32(nil), c.X...)))
			y := tensor.New(tensor.WithShape(n), tensor.WithBacking(append([]float32(nil), c.Y...)))
			h, err := outer.Fit(x, y, keras.FitConfig{Epochs: c.Epochs, BatchSize: c.BatchSize, NoShuffle: true, Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range c.History {
				for e := range want {
					if got := h.History[k]; len(got) != len(want) || !closeRel(got[e], want[e], 2e-5) {
						t.Errorf("history %s = %v, Keras %v", k, got, want)
						break
					}
				}
			}
			p, err := outer.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range p.Data().([]float32) {
				if !closeRel(float64(v), float64(c.Predict[i]), 2e-5) {
					t.Errorf("predict[%d] = %v, Keras %v", i, v, c.Predict[i])
					break
				}
			}
			for _, l := range leafLayers(outer) {
				for i, v := range l.Weights() {
					want := c.FinalWeights[l.Name()][i]
					for j, g := range v.Numpy() {
						if !closeRel(float64(g), float64(want[j]), 2e-5) {
							t.Errorf("%s weight %d[%d] = %v, Keras %v", l.Name(), i, j, g, want[j])
							break
						}
					}
				}
			}
			// The nested models share their weights with the outer one.
			if inner.Weights()[0] != outer.Weights()[0] {
				t.Error("the nested Sequential's first weight is not the outer model's first weight")
			}
		})
	}
}
