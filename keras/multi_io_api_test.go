package keras_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

func ramp(scale float32, mod int, shape ...int) *tensor.Dense {
	d := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float32))
	v := d.Data().([]float32)
	for i := range v {
		v[i] = float32((i*7)%mod) * scale
	}
	return d
}

// twoInTwoOutData is data for twoInTwoOut: n examples, class ids for
// out_a, values for out_b, and per-output sample weights.
func twoInTwoOutData(n int) (x, y, sw map[string]*tensor.Dense) {
	x = map[string]*tensor.Dense{"a": ramp(0.1, 11, n, 4), "b": ramp(-0.2, 5, n, 3)}
	y = map[string]*tensor.Dense{"out_a": ramp(1, 3, n), "out_b": ramp(0.3, 4, n, 1)}
	sw = map[string]*tensor.Dense{"out_a": ramp(0.5, 4, n), "out_b": ramp(0.25, 5, n)}
	return x, y, sw
}

// Fit on a NamedDataset whose elements name their components in an order
// other than the model's, with per-output sample weights, equals Fit on
// the same arrays given as maps; so does a dataset of flat elements in
// the model's order, and a per-output weight left out of the map weighs 1
// as an explicit array of ones does.
func TestMultiIODataForms(t *testing.T) {
	const n = 12
	x, y, sw := twoInTwoOutData(n)
	var init []*tensor.Dense
	run := func(data, labels any, weights any) map[string][]float64 {
		layers.ClearSession()
		m := twoInTwoOut(t)
		if init == nil {
			init = m.GetWeights()
		} else if err := m.SetWeights(init); err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)),
			Loss: map[string]string{"out_a": "sparse_categorical_crossentropy", "out_b": "mse"}, MetricsByOutput: map[string][]any{"out_b": {"mae"}}}); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(data, labels, keras.FitConfig{Epochs: 2, BatchSize: 4, NoShuffle: true, SampleWeight: weights, Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		return h.History
	}
	want := run(x, y, sw)
	// Components in element order: X, then Y, then SampleWeight, each in
	// the order named.
	ds2, err := datasets.FromTensorSlices(x["b"], x["a"], y["out_b"], y["out_a"], sw["out_b"], sw["out_a"])
	if err != nil {
		t.Fatal(err)
	}
	named := keras.NamedDataset{Dataset: ds2.Batch(4, false), X: []string{"b", "a"}, Y: []string{"out_b", "out_a"}, SampleWeight: []string{"out_b", "out_a"}}
	flat, err := datasets.FromTensorSlices(x["a"], x["b"], y["out_a"], y["out_b"], sw["out_a"], sw["out_b"])
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]map[string][]float64{
		"NamedDataset":  run(named, nil, nil),
		"flat dataset":  run(flat.Batch(4, false), nil, nil),
		"slices":        run([]*tensor.Dense{x["a"], x["b"]}, []*tensor.Dense{y["out_a"], y["out_b"]}, []*tensor.Dense{sw["out_a"], sw["out_b"]}),
		"*NamedDataset": run(&named, nil, nil),
	} {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: history %v, maps %v", name, got, want)
		}
	}
	ones := ramp(0, 1, n)
	for i := range ones.Data().([]float32) {
		ones.Data().([]float32)[i] = 1
	}
	partial := run(x, y, map[string]*tensor.Dense{"out_b": sw["out_b"]})
	explicit := run(x, y, map[string]*tensor.Dense{"out_a": ones, "out_b": sw["out_b"]})
	if fmt.Sprint(partial) != fmt.Sprint(explicit) {
		t.Errorf("a left-out output weight: %v; explicit ones: %v", partial, explicit)
	}
	if fmt.Sprint(partial) == fmt.Sprint(want) {
		t.Error("the out_a weights made no difference")
	}
}

// StepsPerExecution calls the batch callbacks at the first and last batch
// of each execution, in Fit and Evaluate, and gives the numbers of one
// step per execution.
func TestStepsPerExecutionCallbacks(t *testing.T) {
	xs, ys := randomData(9, 14, 3, 2)
	var hists [2]*keras.History
	var evals [2]keras.Logs
	var got [2][]string
	var init []*tensor.Dense
	for i, spe := range []int{1, 3} {
		layers.ClearSession()
		m := keras.MustSequential(layers.NewDense(2, layers.WithInputShape(3)))
		if init == nil {
			init = m.GetWeights()
		} else if err := m.SetWeights(init); err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"}, StepsPerExecution: spe}); err != nil {
			t.Fatal(err)
		}
		rec := func(what string) func(int, keras.Logs) error {
			return func(b int, _ keras.Logs) error { got[i] = append(got[i], fmt.Sprintf("%s%d", what, b)); return nil }
		}
		cb := &callbacks.LambdaCallback{TrainBatchBegin: rec("b"), TrainBatchEnd: rec("e"), TestBatchBegin: rec("tb"), TestBatchEnd: rec("te")}
		var err error
		if hists[i], err = m.Fit(xs, ys, keras.FitConfig{BatchSize: 2, Epochs: 2, NoShuffle: true, Callbacks: []keras.Callback{cb}, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		if evals[i], err = m.Evaluate(xs, ys, keras.EvaluateConfig{BatchSize: 4, Callbacks: []keras.Callback{cb}, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(hists[0].History) != fmt.Sprint(hists[1].History) || fmt.Sprint(evals[0]) != fmt.Sprint(evals[1]) {
		t.Errorf("StepsPerExecution 3 changed the numbers: %v %v, 1: %v %v", hists[1].History, evals[1], hists[0].History, evals[0])
	}
	// 7 batches an epoch: executions [0..2], [3..5], [6]; Evaluate's 4
	// batches: [0..2], [3].
	epoch := "b0 e2 b3 e5 b6 e6 "
	if want := strings.TrimSpace(epoch + epoch + "tb0 te2 tb3 te3"); strings.Join(got[1], " ") != want {
		t.Errorf("callbacks %v, want %s", got[1], want)
	}
	if len(got[0]) != 2*7*2+4*2 {
		t.Errorf("StepsPerExecution 1: %d callback calls %v", len(got[0]), got[0])
	}
}

// Bad names and shapes of multi-output arguments are errors that name
// what the model has.
func TestMultiIOErrors(t *testing.T) {
	layers.ClearSession()
	m := twoInTwoOut(t)
	x, y, sw := twoInTwoOutData(6)
	for _, c := range []struct {
		cfg  keras.CompileConfig
		want string
	}{
		{keras.CompileConfig{Loss: map[string]any{"out_a": "mse", "out_c": "mse"}}, `"out_c"`},
		{keras.CompileConfig{Loss: map[string]any{"out_a": "mse"}}, `no loss for output "out_b"`},
		{keras.CompileConfig{Loss: "mse", LossWeights: []float64{1, 1}, LossWeightsByOutput: map[string]float64{"out_a": 1}}, "not both"},
		{keras.CompileConfig{Loss: "mse", LossWeightsByOutput: map[string]float64{"x": 1}}, `"x"`},
		{keras.CompileConfig{Loss: "mse", Metrics: []any{[]any{"mae"}}}, "1 lists for the model's 2 outputs"},
		{keras.CompileConfig{Loss: "mse", MetricsByOutput: map[string][]any{"nope": {"mae"}}}, `"nope"`},
		{keras.CompileConfig{Loss: "mse", StepsPerExecution: -1}, "StepsPerExecution"},
		{keras.CompileConfig{Loss: []string{"mse"}}, "1 losses for 2 outputs"},
	} {
		if err := m.Compile(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%+v): %v, want an error with %s", c.cfg, err, c.want)
		}
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: []string{"sparse_categorical_crossentropy", "mse"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, y, sw any
		want     string
	}{
		{x["a"], y, nil, "2 inputs [a b]"},
		{[]*tensor.Dense{x["a"]}, y, nil, "1 arrays for the model's 2 inputs"},
		{map[string]*tensor.Dense{"a": x["a"]}, y, nil, `no array for input "b"`},
		{x, map[string]*tensor.Dense{"out_a": y["out_a"], "out_b": y["out_b"], "out_c": y["out_b"]}, nil, `no output named "out_c"`},
		{x, y, map[string]*tensor.Dense{"zz": sw["out_a"]}, `"zz"`},
		{x, nil, sw, "needs labels"},
		{x, y, []*tensor.Dense{sw["out_a"], ramp(1, 2, 5)}, "5 weights for 6 examples"},
		{map[string]*tensor.Dense{"a": x["a"], "b": ramp(1, 2, 5, 3)}, y, nil, "examples"},
		{keras.NamedDataset{}, nil, nil, "nil Dataset"},
	} {
		if _, err := m.Fit(c.x, c.y, keras.FitConfig{SampleWeight: c.sw, Verbose: keras.VerboseSilent}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit(%T, %T, %T): %v, want an error with %s", c.x, c.y, c.sw, err, c.want)
		}
	}
	ds, _ := datasets.FromTensorSlices(x["a"], x["b"])
	if _, err := m.Predict(keras.NamedDataset{Dataset: ds.Batch(2, false), X: []string{"a", "c"}}, keras.PredictConfig{}); err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Errorf("NamedDataset naming input c: %v", err)
	}
	if _, err := m.Predict(keras.NamedDataset{Dataset: ds.Batch(2, false), X: []string{"a", "a"}}, keras.PredictConfig{}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("NamedDataset naming input a twice: %v", err)
	}
	// The old forms still work: a single-input model's {x, y} pair.
	layers.ClearSession()
	one := keras.MustSequential(layers.NewDense(1, layers.WithInputShape(4)))
	_ = one.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"})
	if _, err := one.Fit([]*tensor.Dense{x["a"], y["out_b"]}, nil, keras.FitConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Errorf("{x, y} pair: %v", err)
	}
	var nilY *tensor.Dense
	if _, err := one.Predict(x["a"], keras.PredictConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Error(err)
	}
	if _, err := one.Fit(x["a"], nilY, keras.FitConfig{Verbose: keras.VerboseSilent}); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Errorf("a typed nil y: %v", err)
	}
}
