package keras_test

import (
	"slices"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// multiIOCase is one case of testdata/multi_io/multi_io.json, written by
// tools/keras_reference/multi_io_vectors.py from Keras 3.
type multiIOCase struct {
	Name              string
	Form              string
	LR                float64 `json:"lr"`
	BatchSize         int     `json:"batch_size"`
	Epochs            int
	StepsPerExecution int `json:"steps_per_execution"`
	XA, XB, YA, YB    []float32
	ValXA             []float32              `json:"val_xa"`
	ValXB             []float32              `json:"val_xb"`
	ValYA             []float32              `json:"val_ya"`
	ValYB             []float32              `json:"val_yb"`
	InitialWeights    map[string][][]float32 `json:"initial_weights"`
	HistoryKeys       []string               `json:"history_keys"`
	History           map[string][]float64
	Evaluate          map[string]float64
	PredictA          []float32              `json:"predict_a"`
	PredictB          []float32              `json:"predict_b"`
	FinalWeights      map[string][][]float32 `json:"final_weights"`
	SampleWeightA     []float32              `json:"sample_weight_a"`
	SampleWeightB     []float32              `json:"sample_weight_b"`
}

// twoInTwoOut is the model of multi_io_vectors.py: inputs "a" (4,) and
// "b" (3,), Dense "ha" (5, relu) and "hb" (5, tanh), Concatenate, Dense
// "out_a" (3, softmax) and "out_b" (1).
func twoInTwoOut(t *testing.T) *keras.Model {
	t.Helper()
	a := layers.Input([]int{4}, layers.WithName("a"))
	b := layers.Input([]int{3}, layers.WithName("b"))
	ha := layers.Apply(layers.NewDense(5, layers.WithActivation("relu"), layers.WithName("ha")), a)
	hb := layers.Apply(layers.NewDense(5, layers.WithActivation("tanh"), layers.WithName("hb")), b)
	h := layers.Apply(layers.NewConcatenate(layers.WithName("concat")), ha, hb)
	outA := layers.Apply(layers.NewDense(3, layers.WithActivation("softmax"), layers.WithName("out_a")), h)
	outB := layers.Apply(layers.NewDense(1, layers.WithName("out_b")), h)
	m, err := keras.NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{outA, outB}, keras.ModelName("two_in_two_out"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func setLayerWeights(t *testing.T, m *keras.Model, ws map[string][][]float32) {
	t.Helper()
	for _, l := range m.Layers() {
		vals, ok := ws[l.Name()]
		if !ok {
			continue
		}
		vars := l.Weights()
		if len(vars) != len(vals) {
			t.Fatalf("layer %s: %d weights, Keras %d", l.Name(), len(vars), len(vals))
		}
		for i, v := range vars {
			if err := v.Assign(append([]float32(nil), vals[i]...)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Keras 3's fit, evaluate and predict of a two-input two-output model,
// with data, losses, loss weights, metrics and sample weights given as
// maps by name and as lists, and with steps_per_execution: the History's
// keys (Keras' names) and values, the evaluation, the predictions and the
// trained weights match.
func TestMultiIOMatchesKeras(t *testing.T) {
	for _, c := range kerasvectors.Read[multiIOCase](t, "testdata/multi_io/multi_io.json") {
		t.Run(c.Name, func(t *testing.T) {
			layers.ClearSession()
			m := twoInTwoOut(t)
			setLayerWeights(t, m, c.InitialWeights)
			n, nv := len(c.YA), len(c.ValYA)
			d := func(v []float32, shape ...int) *tensor.Dense {
				return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), v...)))
			}
			cc := keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(c.LR)), StepsPerExecution: c.StepsPerExecution}
			fc := keras.FitConfig{Epochs: c.Epochs, BatchSize: c.BatchSize, NoShuffle: true, Verbose: keras.VerboseSilent}
			var x, y any
			if c.Form == "dict" {
				cc.Loss = map[string]any{"out_a": "sparse_categorical_crossentropy", "out_b": "mse"}
				cc.LossWeightsByOutput = map[string]float64{"out_a": 1, "out_b": 0.5}
				cc.MetricsByOutput = map[string][]any{"out_a": {"accuracy"}, "out_b": {"mae"}}
				x = map[string]*tensor.Dense{"b": d(c.XB, n, 3), "a": d(c.XA, n, 4)}
				y = map[string]*tensor.Dense{"out_b": d(c.YB, n, 1), "out_a": d(c.YA, n)}
				fc.ValidationData = []any{
					map[string]*tensor.Dense{"a": d(c.ValXA, nv, 4), "b": d(c.ValXB, nv, 3)},
					map[string]*tensor.Dense{"out_a": d(c.ValYA, nv), "out_b": d(c.ValYB, nv, 1)},
				}
			} else {
				cc.Loss = []any{"sparse_categorical_crossentropy", "mse"}
				cc.LossWeights = []float64{1, 0.5}
				cc.Metrics = []any{[]any{"accuracy"}, []string{"mae"}}
				x = []*tensor.Dense{d(c.XA, n, 4), d(c.XB, n, 3)}
				y = []*tensor.Dense{d(c.YA, n), d(c.YB, n, 1)}
				fc.ValidationData = []any{
					[]*tensor.Dense{d(c.ValXA, nv, 4), d(c.ValXB, nv, 3)},
					[]*tensor.Dense{d(c.ValYA, nv), d(c.ValYB, nv, 1)},
				}
			}
			var sw any
			if c.SampleWeightA != nil {
				cc.WeightedMetricsByOutput = map[string][]any{"out_b": {"mse"}}
				sw = []*tensor.Dense{d(c.SampleWeightA, n), d(c.SampleWeightB, n)}
				fc.SampleWeight = sw
			}
			if err := m.Compile(cc); err != nil {
				t.Fatal(err)
			}
			h, err := m.Fit(x, y, fc)
			if err != nil {
				t.Fatal(err)
			}
			got, want := slices.Sorted(slices.Values(h.Names)), slices.Sorted(slices.Values(c.HistoryKeys))
			if !slices.Equal(got, want) {
				t.Errorf("History keys %v, Keras %v", h.Names, c.HistoryKeys)
			}
			for k, want := range c.History {
				got := h.History[k]
				if len(got) != len(want) {
					t.Errorf("history %s = %v, Keras %v", k, got, want)
					continue
				}
				for e := range want {
					if !closeRel(got[e], want[e], 2e-5) {
						t.Errorf("history %s epoch %d = %v, Keras %v", k, e, got[e], want[e])
					}
				}
			}
			logs, err := m.Evaluate(x, y, keras.EvaluateConfig{BatchSize: c.BatchSize, SampleWeight: sw, Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			if len(logs) != len(c.Evaluate) {
				t.Errorf("Evaluate logs %v, Keras %v", logs, c.Evaluate)
			}
			for k, want := range c.Evaluate {
				if got, ok := logs[k]; !ok || !closeRel(got, want, 2e-5) {
					t.Errorf("Evaluate %s = %v (logged %v), Keras %v", k, got, ok, want)
				}
			}
			pred, err := m.PredictByName(x, keras.PredictConfig{BatchSize: c.BatchSize, Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string][]float32{"out_a": c.PredictA, "out_b": c.PredictB} {
				got := pred[name].Data().([]float32)
				for i := range want {
					if !closeRel(float64(got[i]), float64(want[i]), 2e-5) {
						t.Errorf("predict %s[%d] = %v, Keras %v", name, i, got[i], want[i])
						break
					}
				}
			}
			for _, l := range m.Layers() {
				want, ok := c.FinalWeights[l.Name()]
				if !ok {
					continue
				}
				for i, v := range l.Weights() {
					for j, g := range v.Numpy() {
						if !closeRel(float64(g), float64(want[i][j]), 2e-5) {
							t.Errorf("%s weight %d[%d] = %v, Keras %v", l.Name(), i, j, g, want[i][j])
							break
						}
					}
				}
			}
		})
	}
}
