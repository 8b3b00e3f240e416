package keras_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

func sequences(seed uint64, n, length, dim int) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 5))
	x, y := make([]float32, n*length*dim), make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for i := range y {
		y[i] = float32(r.NormFloat64())
	}
	return tensor.New(tensor.WithShape(n, length, dim), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(y))
}

// seqModel is Dense(4, tanh) over time, the mean over time, Dense(1), for
// sequences of the given length (layers.None: any).
func seqModel(t *testing.T, length int) *keras.Model {
	t.Helper()
	x := layers.Input([]int{length, 8})
	h := layers.Apply(layers.NewDense(4, layers.WithActivation("tanh")), x)
	p := layers.Apply(layers.NewGlobalAveragePooling1D(), h)
	m, err := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{layers.Apply(layers.NewDense(1), p)})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.05)), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	return m
}

// An Input with a None dimension (variable sequence lengths) takes
// batches of any length, retracing per length: it predicts and trains as
// models made for each fixed length, with the same weights.
func TestInputNoneDimension(t *testing.T) {
	layers.ClearSession()
	m := seqModel(t, layers.None)
	if got := fmt.Sprint(m.Layers()[1].(interface{ Output() *layers.KerasTensor }).Output().Shape()); got != "(None, None, 4)" {
		t.Errorf("Dense over a None time axis has shape %s, want (None, None, 4)", got)
	}
	s, err := m.SummaryString()
	if err != nil || !strings.Contains(s, "(None, None, 8)") {
		t.Errorf("summary (%v):\n%s", err, s)
	}
	fixed5, fixed9 := seqModel(t, 5), seqModel(t, 9)
	for _, f := range []*keras.Model{fixed5, fixed9} {
		if err := f.SetWeights(m.GetWeights()); err != nil {
			t.Fatal(err)
		}
	}
	x5, y5 := sequences(1, 12, 5, 8)
	x9, y9 := sequences(2, 12, 9, 8)
	fit := keras.FitConfig{Epochs: 2, BatchSize: 4, NoShuffle: true, Verbose: keras.VerboseSilent}
	for _, step := range []struct {
		x, y  *tensor.Dense
		fixed *keras.Model
	}{{x5, y5, fixed5}, {x9, y9, fixed9}} {
		got, err := m.Predict(step.x, keras.PredictConfig{Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		want, err := step.fixed.Predict(step.x, keras.PredictConfig{Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Data()) != fmt.Sprint(want.Data()) {
			t.Errorf("length %d: None model predicts %v, fixed model %v", step.x.Shape()[1], got.Data(), want.Data())
		}
		if _, err := m.Fit(step.x, step.y, fit); err != nil {
			t.Fatal(err)
		}
		if _, err := step.fixed.Fit(step.x, step.y, fit); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(m.GetWeights()[0].Data()) != fmt.Sprint(step.fixed.GetWeights()[0].Data()) {
			t.Errorf("length %d: trained weights differ from the fixed-length model's", step.x.Shape()[1])
		}
		if err := fixed9.SetWeights(m.GetWeights()); err != nil {
			t.Fatal(err)
		}
	}
	if e := layers.Input([]int{0, 8}).Err(); e == nil {
		t.Error("Input with a 0 dimension: no error")
	}
}

// An int32 Input feeds an Embedding with token ids of any length; a
// dtype gokeras has not is an error.
func TestInputDtype(t *testing.T) {
	layers.ClearSession()
	ids := layers.Input([]int{layers.None}, layers.WithDtype("int32"), layers.WithName("tokens"))
	if ids.Dtype() != "int32" || layers.Input([]int{3}).Dtype() != "float32" {
		t.Errorf("dtypes %q", ids.Dtype())
	}
	emb := layers.NewEmbedding(10, 3)
	h := layers.Apply(layers.NewGlobalAveragePooling1D(), layers.Apply(emb, ids))
	m, err := keras.NewModel([]*layers.KerasTensor{ids}, []*layers.KerasTensor{h})
	if err != nil {
		t.Fatal(err)
	}
	for _, length := range []int{2, 6} {
		x := make([]float32, 2*length)
		for i := range x {
			x[i] = float32(i % 10)
		}
		p, err := m.Predict(tensor.New(tensor.WithShape(2, length), tensor.WithBacking(x)), keras.PredictConfig{Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		// The mean of the looked-up rows, computed here.
		table := emb.Weights()[0].Numpy()
		for r := 0; r < 2; r++ {
			for c := 0; c < 3; c++ {
				var want float64
				for j := 0; j < length; j++ {
					want += float64(table[int(x[r*length+j])*3+c])
				}
				want /= float64(length)
				if got := float64(p.Data().([]float32)[r*3+c]); math.Abs(got-want) > 1e-6 {
					t.Errorf("length %d [%d,%d] = %v, want %v", length, r, c, got, want)
				}
			}
		}
	}
	if cfg := ids.Node().Layer.GetConfig(); cfg["dtype"] != "int32" {
		t.Errorf("InputLayer config %v", cfg)
	}
	if e := layers.Input([]int{3}, layers.WithDtype("complex64")).Err(); e == nil || !strings.Contains(e.Error(), "complex64") {
		t.Errorf("dtype complex64: %v", e)
	}
}

// A Sequential model that starts with an InputLayer is built at once,
// for its shape, and lists only the layers after it; an InputLayer
// elsewhere is an error.
func TestSequentialStartsWithInput(t *testing.T) {
	layers.ClearSession()
	in := layers.NewInputLayer([]int{28, 28, 1}, layers.WithName("image"))
	m, err := keras.NewSequential(in, layers.NewConv2D(4, 3), layers.NewFlatten(), layers.NewDense(10))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Built() || len(m.Layers()) != 3 || m.Inputs()[0] != in.Tensor() || m.InputNames()[0] != "image" {
		t.Fatalf("built %v, %d layers, inputs %v", m.Built(), len(m.Layers()), m.InputNames())
	}
	if got := fmt.Sprint(m.Outputs()[0].Shape()); got != "(None, 10)" {
		t.Errorf("output shape %s", got)
	}
	if _, err := keras.NewSequential(layers.NewDense(2, layers.WithInputShape(3)), layers.NewInputLayer([]int{2})); err == nil {
		t.Error("an InputLayer after a Dense: no error")
	}
}

// layer.Input() and layer.Output() are the tensors of the layer's first
// call: a model from the base's input to an inner layer's output (Keras'
// feature extraction) computes what that layer computes.
func TestLayerInputOutput(t *testing.T) {
	layers.ClearSession()
	x := layers.Input([]int{6})
	hidden := layers.NewDense(4, layers.WithActivation("relu"))
	h := layers.Apply(hidden, x)
	head := layers.NewDense(2)
	out := layers.Apply(head, h)
	if hidden.Input() != x || hidden.Output() != h || head.Input() != h || head.Output() != out {
		t.Fatal("Input/Output are not the tensors of the first call")
	}
	if layers.NewDense(1).Output() != nil {
		t.Error("an uncalled layer has an output")
	}
	in := x.Node().Layer.(*layers.InputLayer)
	if in.Input() != x || in.Output() != x {
		t.Error("an InputLayer's Input and Output are not its tensor")
	}
	features, err := keras.NewModel([]*layers.KerasTensor{hidden.Input()}, []*layers.KerasTensor{hidden.Output()})
	if err != nil {
		t.Fatal(err)
	}
	// The same layer called on a fresh input: an independent graph.
	x2 := layers.Input([]int{6})
	ref, err := keras.NewModel([]*layers.KerasTensor{x2}, []*layers.KerasTensor{layers.Apply(hidden, x2)})
	if err != nil {
		t.Fatal(err)
	}
	if hidden.Output() != h {
		t.Error("a second call changed Output")
	}
	xs, _ := randomData(4, 5, 6, 2)
	a, err := features.Predict(xs, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ref.Predict(xs, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a.Data()) != fmt.Sprint(b.Data()) || a.Shape()[1] != 4 {
		t.Errorf("features %v, the layer itself %v", a.Data(), b.Data())
	}
}

// A dataset whose batches have different sequence lengths trains a model
// with a None time axis (one trace per length); Predict concatenates
// outputs whose size does not follow the length and refuses, with an
// error, outputs whose size does.
func TestInputNoneVariableBatches(t *testing.T) {
	layers.ClearSession()
	m := seqModel(t, layers.None)
	lengths := []int{3, 6, 4}
	gen := datasets.FromGenerator(func(yield func(datasets.Element) bool) error {
		for i, l := range lengths {
			x, y := sequences(uint64(10+i), 4, l, 8)
			if !yield(datasets.Element{x, y}) {
				return nil
			}
		}
		return nil
	}, len(lengths))
	h, err := m.Fit(gen, nil, keras.FitConfig{Epochs: 2, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if l := h.History["loss"]; len(l) != 2 || math.IsNaN(l[1]) {
		t.Errorf("loss %v", l)
	}
	p, err := m.Predict(gen, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil || fmt.Sprint(p.Shape()) != "(12, 1)" {
		t.Errorf("predict: %v %v", p, err)
	}
	x := layers.Input([]int{layers.None, 8})
	perStep, err := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{layers.Apply(layers.NewDense(2), x)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := perStep.Predict(gen, keras.PredictConfig{Verbose: keras.VerboseSilent}); err == nil || !strings.Contains(err.Error(), "concatenated") {
		t.Errorf("per-step outputs of varying lengths: %v", err)
	}
}
