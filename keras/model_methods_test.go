package keras_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

type modelJSONCase struct {
	Name        string
	JSON        string
	CountParams int `json:"count_params"`
	Layers      []string
}

// Keras' model.to_json() loads with ModelFromJSON: the same layers and
// count_params, and ToJSON of the result loads again to the same model.
func TestModelFromKerasJSON(t *testing.T) {
	for _, c := range kerasvectors.Read[modelJSONCase](t, "testdata/keras/model_json.json") {
		t.Run(c.Name, func(t *testing.T) {
			m, err := keras.ModelFromJSON(c.JSON)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.CountParams(); got != c.CountParams {
				t.Errorf("CountParams %d, Keras %d", got, c.CountParams)
			}
			var names []string
			for _, l := range m.Layers() {
				names = append(names, l.Name())
			}
			if !slices.Equal(names, c.Layers) {
				t.Errorf("layers %v, Keras %v", names, c.Layers)
			}
			for _, n := range c.Layers {
				if l, err := m.GetLayer(n); err != nil || l.Name() != n {
					t.Errorf("GetLayer(%q) = %v, %v", n, l, err)
				}
			}
			if _, err := m.GetLayer("nope"); err == nil || !strings.Contains(err.Error(), c.Layers[0]) {
				t.Errorf("GetLayer of a missing name: %v", err)
			}
			s, err := m.ToJSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := keras.ModelFromJSON(s)
			if err != nil {
				t.Fatal(err)
			}
			if back.CountParams() != c.CountParams {
				t.Errorf("after ToJSON: %d params", back.CountParams())
			}
		})
	}
	for _, bad := range []string{"", "{}", `{"class_name": "Sequential"} x`, `[1]`} {
		if _, err := keras.ModelFromJSON(bad); err == nil {
			t.Errorf("ModelFromJSON(%q) accepted", bad)
		}
	}
}

// TrainOnBatch, TestOnBatch and PredictOnBatch run one step on one batch;
// layers.GetWeights/SetWeights and Variable.AssignAdd work as Keras'.
func TestOnBatchMethods(t *testing.T) {
	m, err := keras.NewSequential(layers.NewDense(2, layers.WithInputShape(3)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)), Loss: "mse", Metrics: []any{"mae"}}); err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}))
	y := tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{1, 0, 0, 1, 1, 1, 0, 0}))
	before, err := m.TestOnBatch(x, y)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := m.TrainOnBatch(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if logs["loss"] != before["loss"] {
		t.Errorf("train_on_batch loss %v, want the loss before the step %v", logs["loss"], before["loss"])
	}
	after, err := m.TestOnBatch(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !(after["loss"] < before["loss"]) {
		t.Errorf("loss %v after a step, %v before", after["loss"], before["loss"])
	}
	p, err := m.PredictOnBatch(x)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Shape(), tensor.Shape{4, 2}) {
		t.Errorf("PredictOnBatch shape %v", p.Shape())
	}
	dense := m.Layers()[0]
	ws := layers.GetWeights(dense)
	if len(ws) != 2 || !slices.Equal(ws[0].Shape(), tensor.Shape{3, 2}) {
		t.Fatalf("GetWeights %v", ws)
	}
	ws[1] = tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{5, 6}))
	if err := layers.SetWeights(dense, ws); err != nil {
		t.Fatal(err)
	}
	bias := dense.Weights()[1]
	if err := bias.AssignAdd([]float32{1, 1}); err != nil {
		t.Fatal(err)
	}
	if got := bias.Numpy(); !slices.Equal(got, []float32{6, 7}) {
		t.Errorf("bias after SetWeights and AssignAdd: %v", got)
	}
	if err := bias.AssignAdd([]float32{1}); err == nil {
		t.Error("AssignAdd of the wrong size accepted")
	}
	if err := layers.SetWeights(dense, ws[:1]); err == nil {
		t.Error("SetWeights with one weight missing accepted")
	}
}

type onBatchCase struct {
	Name         string
	Kernel, Bias []float32
	X, Y         [][]float32
	Calls        []struct {
		Call         string
		Batch        int
		Logs         map[string]float64
		Output       []float32
		Weights      [][]float32
		SampleWeight []float32          `json:"sample_weight"`
		ClassWeight  map[string]float64 `json:"class_weight"`
	}
}

// TrainOnBatch, TestOnBatch and PredictOnBatch against Keras 3
// (tools/keras_reference/on_batch_vectors.py): each call's logs, computed
// before its update and over its batch alone (Keras resets the metrics at
// every call), the weights after it and the predictions, within 1e-6;
// with a sample_weight (the loss weighted, the metric "mae" not, as
// Keras 3's compiled metrics) and a class_weight.
func TestOnBatchMatchesKeras(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	for _, c := range kerasvectors.Read[onBatchCase](t, "testdata/keras/on_batch.json") {
		t.Run(c.Name, func(t *testing.T) {
			dense := layers.NewDense(2, layers.WithInputShape(3))
			m, err := keras.NewSequential(dense)
			if err != nil {
				t.Fatal(err)
			}
			dense.Weights()[0].Assign(c.Kernel)
			dense.Weights()[1].Assign(c.Bias)
			if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)), Loss: "mse", Metrics: []any{"mae"}}); err != nil {
				t.Fatal(err)
			}
			batch := func(i int) (*tensor.Dense, *tensor.Dense) {
				return tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(slices.Clone(c.X[i]))),
					tensor.New(tensor.WithShape(4, 2), tensor.WithBacking(slices.Clone(c.Y[i])))
			}
			for i, call := range c.Calls {
				x, y := batch(call.Batch)
				var opts []keras.OnBatchOption
				if call.SampleWeight != nil {
					opts = append(opts, keras.SampleWeight(tensor.New(tensor.WithShape(len(call.SampleWeight)), tensor.WithBacking(call.SampleWeight))))
				}
				if call.ClassWeight != nil {
					cw := map[int]float64{}
					for k, v := range call.ClassWeight {
						n, err := strconv.Atoi(k)
						if err != nil {
							t.Fatal(err)
						}
						cw[n] = v
					}
					opts = append(opts, keras.ClassWeight(cw))
				}
				var logs keras.Logs
				switch call.Call {
				case "train_on_batch":
					logs, err = m.TrainOnBatch(x, y, opts...)
				case "test_on_batch":
					logs, err = m.TestOnBatch(x, y, opts...)
				case "predict_on_batch":
					var p *tensor.Dense
					p, err = m.PredictOnBatch(x)
					if err == nil {
						for j, v := range p.Data().([]float32) {
							if !near(float64(v), float64(call.Output[j])) {
								t.Errorf("call %d predict_on_batch[%d] = %v, Keras %v", i, j, v, call.Output[j])
							}
						}
					}
				default:
					t.Fatalf("unknown call %q", call.Call)
				}
				if err != nil {
					t.Fatalf("call %d %s: %v", i, call.Call, err)
				}
				if call.Logs != nil {
					if len(logs) != len(call.Logs) {
						t.Errorf("call %d %s: logs %v, Keras %v", i, call.Call, logs, call.Logs)
					}
					for k, want := range call.Logs {
						if got, ok := logs[k]; !ok || !near(got, want) {
							t.Errorf("call %d %s: %s = %v, Keras %v", i, call.Call, k, got, want)
						}
					}
				}
				for j, w := range m.Weights() {
					for k, v := range w.Numpy() {
						if !near(float64(v), float64(call.Weights[j][k])) {
							t.Errorf("call %d %s: %s[%d] = %v, Keras %v", i, call.Call, w.Name(), k, v, call.Weights[j][k])
							break
						}
					}
				}
			}
		})
	}
}

// Keras' layer.get_weights() as a method, on a built-in layer and on a
// composite layer (its sublayers' weights, tracked), and
// Variable.assign_sub.
func TestLayerGetWeightsMethod(t *testing.T) {
	p := &penalized{Base: layers.NewBase("Penalized"), dense: layers.NewDense(2)}
	if _, err := layers.OutputShape(p, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	got, want := p.GetWeights(), layers.GetWeights(p.dense)
	if len(got) != 2 || len(want) != 2 {
		t.Fatalf("composite GetWeights %d weights, its Dense %d: want 2", len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i].Shape(), want[i].Shape()) || !slices.Equal(got[i].Data().([]float32), want[i].Data().([]float32)) {
			t.Errorf("weight %d: composite %v, Dense %v", i, got[i], want[i])
		}
	}
	if d := p.dense.GetWeights(); len(d) != 2 || !slices.Equal(d[0].Data().([]float32), want[0].Data().([]float32)) {
		t.Errorf("Dense.GetWeights %v", d)
	}
	got[0].Data().([]float32)[0] = 99 // a copy
	bias := p.dense.Weights()[1]
	if err := bias.AssignSub([]float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if b := bias.Numpy(); !slices.Equal(b, []float32{-1, -2}) || p.dense.Weights()[0].Numpy()[0] == 99 {
		t.Errorf("bias after AssignSub %v (kernel %v)", b, p.dense.Weights()[0].Numpy())
	}
}

// TestOnBatch takes no class weights, as Keras' test_on_batch.
func TestTestOnBatchRefusesClassWeight(t *testing.T) {
	m, err := keras.NewSequential(layers.NewDense(2, layers.WithInputShape(3)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float32, 6)))
	y := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking(make([]float32, 4)))
	if _, err := m.TestOnBatch(x, y, keras.ClassWeight(map[int]float64{0: 1})); err == nil || !strings.Contains(err.Error(), "class weights") {
		t.Errorf("TestOnBatch with a class weight: %v", err)
	}
}
