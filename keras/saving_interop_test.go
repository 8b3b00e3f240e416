package keras

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Interop with Python Keras, both ways.
//
// Keras -> gokeras: tools/keras_reference/interop_vectors.py saved the seed
// models with real Keras (keras/testdata/interop/*.keras, legacy .h5) with
// an input batch and Keras' predictions; TestInteropLoadKerasFiles loads
// each and predicts the same outputs.
//
// gokeras -> Keras: with GOKERAS_INTEROP_OUT=DIR, TestInteropWriteForKeras
// saves the same models from gokeras (trained a few steps, so that the
// optimizer's slots and BatchNormalization's moving statistics are not
// their initial values) with an input batch and gokeras' predictions;
// tools/keras_reference/interop_check.py DIR loads them with Python Keras
// and checks the predictions and every variable's path and shape.

// interopArray is a flat row-major array with its shape.
type interopArray struct {
	Shape []int
	Data  []float32
}

func (a interopArray) dense() *tensor.Dense {
	return tensor.New(tensor.WithShape(a.Shape...), tensor.WithBacking(append([]float32(nil), a.Data...)))
}

type interopCase struct {
	Name    string
	Files   map[string]string
	Inputs  []interopArray
	Outputs []interopArray
	H5      []kerasH5Entry `json:",omitempty"` // Keras' model.weights.h5, listed
	// Continue is one more Keras training step on a batch after saving:
	// the predictions after it.
	Continue *struct {
		X, Y    []interopArray
		Outputs []interopArray
	} `json:",omitempty"`
}

// kerasTrained reports whether Keras trained the case's model (its file
// holds optimizer slots, not only the step count and learning rate):
// interop_vectors.py trains those 2 steps.
func (c interopCase) kerasTrained() bool {
	n := 0
	for _, e := range c.H5 {
		if !e.Group && strings.HasPrefix(e.Path, "optimizer/") {
			n++
		}
	}
	return n > 2
}

// interopModels builds, by the names interop_vectors.py uses, the models
// gokeras and Keras exchange. A new model joins here, in
// interopInputShapes and in interop_vectors.py's MODELS.
var interopModels = map[string]func(t *testing.T) *Model{
	"cnn":       ioCNN,
	"resnet":    ioResNet,
	"two_io":    ioTwoIO,
	"rnn":       ioRNN,
	"nested":    ioNested,
	"attention": ioAttention,
	"subclass":  ioSubclass,
}

// interopInputShapes are the shapes of the input batch of each model.
var interopInputShapes = map[string][][]int{
	"cnn":       {{3, 28, 28, 1}},
	"resnet":    {{3, 32, 32, 3}},
	"two_io":    {{3, 6}, {3, 5}},
	"rnn":       {{3, 5, 3}},
	"nested":    {{3, 4}},
	"attention": {{3, 5, 3}, {3, 4, 3}},
	"subclass":  {{3, 4}},
}

// interopNet is a subclassed model (class InteropNet(keras.Model) in
// interop_check.py, registered there under this type's name): its layers
// in fields, its argument in its config.
type interopNet struct {
	*Model
	units       int
	hidden, out *layers.Dense
}

func (n *interopNet) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(n.out, training, layers.Call(n.hidden, training, in[0]))
}

func (n *interopNet) SubclassConfig() map[string]any { return map[string]any{"units": n.units} }

// ioSubclass is an interopNet of 5 units on 4 features, 2 outputs.
func ioSubclass(t *testing.T) *Model {
	n := &interopNet{units: 5, hidden: layers.NewDense(5, layers.WithActivation("relu")), out: layers.NewDense(2)}
	m, err := Subclass(n, SubclassInputShape(4))
	if err != nil {
		t.Fatal(err)
	}
	n.Model = m
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	return m
}

// ioAttention has Keras' three attention layers on a query and a value.
func ioAttention(t *testing.T) *Model {
	q := layers.Input([]int{5, 3}, layers.WithName("q"))
	v := layers.Input([]int{4, 3}, layers.WithName("v"))
	mha := layers.Apply(layers.NewMultiHeadAttention(2, 3, layers.WithValueDim(4)), q, v)
	dot := layers.Apply(layers.NewAttention(layers.WithUseScale(true)), q, v)
	add := layers.Apply(layers.NewAdditiveAttention(), q, v)
	m, err := NewModel([]*layers.KerasTensor{q, v}, []*layers.KerasTensor{mha, dot, add})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: []any{"mse", "mse", "mse"}}); err != nil {
		t.Fatal(err)
	}
	return m
}

// ioNested calls a nested Sequential and a nested functional model.
func ioNested(t *testing.T) *Model {
	seq, err := NewSequential(layers.NewBatchNormalization(layers.WithInputShape(4)), layers.NewDense(5, layers.WithActivation("relu")))
	if err != nil {
		t.Fatal(err)
	}
	seq.name = "inner_seq"
	i := layers.Input([]int{5})
	fn, err := NewModel([]*layers.KerasTensor{i}, []*layers.KerasTensor{layers.Apply(layers.NewDense(3), i)}, ModelName("inner_fn"))
	if err != nil {
		t.Fatal(err)
	}
	x := layers.Input([]int{4})
	m, err := NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{fn.Apply(seq.Apply(x))})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	return m
}

// ioRNN has the recurrent layers whose weights Keras keeps below the
// layer (lstm/cell, time_distributed/layer, bidirectional/forward_layer/cell).
func ioRNN(t *testing.T) *Model {
	m, err := NewSequential(
		layers.NewLSTM(4, layers.WithReturnSequences(true), layers.WithInputShape(5, 3)),
		layers.NewTimeDistributed(layers.NewDense(3)),
		layers.NewGRU(2, layers.WithReturnSequences(true)),
		layers.NewBidirectional(layers.NewLSTM(3)),
		layers.NewDense(2),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	return m
}

// ioCNN is examples/mnist_cnn's model.
func ioCNN(t *testing.T) *Model {
	m, err := NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
	if err != nil {
		t.Fatal(err)
	}
	ioCompile(t, m, losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)))
	return m
}

func ioBlock(x *layers.KerasTensor, filters, kernel, stride int, convShortcut bool) *layers.KerasTensor {
	shortcut := x
	if convShortcut {
		shortcut = layers.Apply(layers.NewConv2D(filters, 1, layers.WithStrides(stride)), shortcut)
		shortcut = layers.Apply(layers.NewBatchNormalization(), shortcut)
	}
	x = layers.Apply(layers.NewConv2D(filters, kernel, layers.WithStrides(stride), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewConv2D(filters, kernel, layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.AddTensors(x, shortcut)
	return layers.Apply(layers.NewReLU(), x)
}

// ioResNet is the seed ResNet's structure (examples/internal/models) with
// 8x fewer filters, as interop_vectors.py builds it.
func ioResNet(t *testing.T) *Model {
	in := layers.Input([]int{32, 32, 3})
	x := layers.Apply(layers.NewConv2D(8, 7, layers.WithStrides(2), layers.WithPadding("same")), in)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), x)
	x = ioBlock(x, 8, 3, 1, true)
	x = ioBlock(x, 8, 3, 1, false)
	x = ioBlock(x, 16, 3, 2, true)
	x = ioBlock(x, 16, 3, 1, false)
	x = ioBlock(x, 32, 3, 2, true)
	x = ioBlock(x, 32, 3, 1, false)
	x = layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	out := layers.Apply(layers.NewDense(10), x)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	ioCompile(t, m, losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)))
	return m
}

// ioTwoIO is a functional model with two inputs and two outputs.
func ioTwoIO(t *testing.T) *Model {
	a := layers.Input([]int{6}, layers.WithName("a"))
	b := layers.Input([]int{5}, layers.WithName("b"))
	x := layers.ConcatenateTensors(-1,
		layers.Apply(layers.NewDense(8, layers.WithActivation("relu")), a),
		layers.Apply(layers.NewDense(4), b))
	x = layers.Apply(layers.NewBatchNormalization(), x)
	cls := layers.Apply(layers.NewDense(3, layers.WithActivation("softmax"), layers.WithName("cls")), x)
	reg := layers.Apply(layers.NewDense(1, layers.WithName("reg")), x)
	m, err := NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{cls, reg})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Compile(CompileConfig{
		Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
		Loss:      []any{losses.NewSparseCategoricalCrossentropy(), losses.NewMeanSquaredError()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ioCompile(t *testing.T, m *Model, loss losses.Loss) {
	t.Helper()
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(), Loss: loss, Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
}

// ioClose compares with relative tolerance 1e-5 (absolute below
// magnitude 1).
func ioClose(t *testing.T, what string, got []float32, want interopArray) {
	t.Helper()
	if len(got) != len(want.Data) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want.Data))
	}
	worst := 0.0
	for i, w := range want.Data {
		d := math.Abs(float64(got[i])-float64(w)) / max(1, math.Abs(float64(w)))
		if math.IsNaN(d) || d > 1e-5 {
			t.Fatalf("%s[%d] = %v, Keras %v", what, i, got[i], w)
		}
		worst = max(worst, d)
	}
	t.Logf("%s: worst relative difference %.3g", what, worst)
}

func ioPredict(t *testing.T, m *Model, ins []interopArray) [][]float32 {
	t.Helper()
	xs := make([]*tensor.Dense, len(ins))
	for i, a := range ins {
		xs[i] = a.dense()
	}
	var x any = xs
	if len(xs) == 1 {
		x = xs[0]
	}
	outs, err := m.PredictAll(x, PredictConfig{Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]float32, len(outs))
	for i, o := range outs {
		got[i] = o.Data().([]float32)
	}
	return got
}

func TestInteropLoadKerasFiles(t *testing.T) {
	cases := kerasvectors.Read[interopCase](t, "testdata/interop/cases.json")
	for _, c := range cases {
		build := interopModels[c.Name]
		if build == nil {
			t.Errorf("case %q: no Go model of that name", c.Name)
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			for kind, file := range c.Files {
				path := filepath.Join("testdata", "interop", file)
				var m *Model
				var err error
				switch kind {
				case "keras", "legacy_model", "legacy_model_optimizer":
					m, err = LoadModel(path)
				case "legacy_weights":
					m = build(t)
					err = m.LoadWeights(path)
				default:
					t.Fatalf("file kind %q unknown", kind)
				}
				if err != nil {
					t.Fatalf("%s: %v", kind, err)
				}
				if kind == "keras" && c.kerasTrained() {
					// The optimizer's state comes along: Keras trained 2 steps.
					if m.Optimizer() == nil || m.Optimizer().Iterations() != 2 {
						t.Errorf("optimizer %v: want the 2 steps Keras trained", m.Optimizer())
					}
				}
				got := ioPredict(t, m, c.Inputs)
				if len(got) != len(c.Outputs) {
					t.Fatalf("%s: %d outputs, Keras %d", kind, len(got), len(c.Outputs))
				}
				for i := range got {
					ioClose(t, kind+" output "+string(rune('0'+i)), got[i], c.Outputs[i])
				}
			}
		})
	}
}

// TestInteropContinueTraining loads a model Keras trained and saved, with
// its Adam state, takes one more training step on a batch and predicts
// what Keras predicts after the same step: the optimizer's variables
// (step count, learning rate, slots) load in Keras' order.
func TestInteropContinueTraining(t *testing.T) {
	n := 0
	for _, c := range kerasvectors.Read[interopCase](t, "testdata/interop/cases.json") {
		if c.Continue == nil {
			continue
		}
		kinds := []string{"keras"}
		if c.Files["legacy_model_optimizer"] != "" {
			kinds = append(kinds, "legacy_model_optimizer") // saving_legacy_h5_optimizer.go
		}
		for _, kind := range kinds {
			n++
			m, err := LoadModel(filepath.Join("testdata", "interop", c.Files[kind]))
			if err != nil {
				t.Fatal(err)
			}
			xs, ys := make([]*tensor.Dense, len(c.Continue.X)), make([]*tensor.Dense, len(c.Continue.Y))
			for i, a := range c.Continue.X {
				xs[i] = a.dense()
			}
			for i, a := range c.Continue.Y {
				ys[i] = a.dense()
			}
			var x, y any = xs, ys
			if len(xs) == 1 {
				x, y = xs[0], ys[0]
			}
			if _, err := m.Fit(x, y, FitConfig{Epochs: 1, BatchSize: xs[0].Shape()[0], NoShuffle: true, Verbose: VerboseSilent}); err != nil {
				t.Fatal(err)
			}
			got := ioPredict(t, m, c.Inputs)
			for i := range got {
				ioClose(t, c.Name+" ("+c.Files[kind]+") after one more step", got[i], c.Continue.Outputs[i])
			}
		}
	}
	if n == 0 {
		t.Fatal("no case continues training")
	}
}

// TestInteropLoadIntoRebuiltModel loads the weights of Keras' .keras files
// into models built in Go (whose layers have other auto-generated names):
// matching by structure.
func TestInteropLoadIntoRebuiltModel(t *testing.T) {
	cases := kerasvectors.Read[interopCase](t, "testdata/interop/cases.json")
	for _, c := range cases {
		m := interopModels[c.Name](t)
		if err := m.LoadWeights(filepath.Join("testdata", "interop", c.Files["keras"])); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got := ioPredict(t, m, c.Inputs)
		for i := range got {
			ioClose(t, c.Name+" output", got[i], c.Outputs[i])
		}
	}
}

// interopOptimizers are the optimizers of the MLPs TestInteropWriteForKeras
// saves: Keras must load each one's variables in its own order (RMSprop's
// slots in blocks, AMSGrad's velocity_hat after the interleaved m and v,
// Nadam's u_product last) and continue training as gokeras does.
var interopOptimizers = map[string]func() optimizers.Optimizer{
	"sgd_momentum": func() optimizers.Optimizer { return optimizers.NewSGD(optimizers.Momentum(0.9)) },
	"rmsprop_centered": func() optimizers.Optimizer {
		return optimizers.NewRMSprop(optimizers.Momentum(0.5), optimizers.Centered(true))
	},
	"adam_amsgrad": func() optimizers.Optimizer { return optimizers.NewAdam(optimizers.Amsgrad(true)) },
	"adamw":        func() optimizers.Optimizer { return optimizers.NewAdamW() },
	"nadam":        func() optimizers.Optimizer { return optimizers.NewNadam() },
	"adamax":       func() optimizers.Optimizer { return optimizers.NewAdamax() },
	"adagrad":      func() optimizers.Optimizer { return optimizers.NewAdagrad() },
	"adadelta":     func() optimizers.Optimizer { return optimizers.NewAdadelta(optimizers.LearningRate(1)) },
	"ftrl":         func() optimizers.Optimizer { return optimizers.NewFtrl() },
	"lion":         func() optimizers.Optimizer { return optimizers.NewLion() },
	"adam_schedule": func() optimizers.Optimizer {
		s, err := optimizers.ExponentialDecay(0.01, 3, 0.5, false)
		if err != nil {
			panic(err) // constant, valid arguments
		}
		return optimizers.NewAdam(optimizers.LearningRateSchedule(s))
	},
}

// ioMLP is a small MLP compiled with opt (no BatchNormalization after a
// bias, whose gradient would be rounding noise that Adam-like optimizers
// scale up).
func ioMLP(t *testing.T, opt optimizers.Optimizer) *Model {
	m, err := NewSequential(layers.NewDense(6, layers.WithActivation("tanh"), layers.WithInputShape(4)), layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: opt, Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInteropWriteForKeras writes gokeras' files for interop_check.py
// (only with GOKERAS_INTEROP_OUT set): the interop models and an MLP per
// optimizer, each trained 2 steps, saved (.keras and .weights.h5), with
// an input batch, gokeras' predictions, and (where one step is well
// conditioned) a batch and gokeras' predictions after one more step from
// the saved state.
func TestInteropWriteForKeras(t *testing.T) {
	dir := os.Getenv("GOKERAS_INTEROP_OUT")
	if dir == "" {
		t.Skip("set GOKERAS_INTEROP_OUT=DIR to write gokeras' files for tools/keras_reference/interop_check.py")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"cnn", "resnet", "two_io", "rnn", "nested", "attention", "subclass"}
	for name := range interopOptimizers {
		names = append(names, "mlp_"+name)
	}
	sort.Strings(names)
	for k, name := range names {
		layers.SetRandomSeed(uint64(k + 1))
		var m *Model
		shapes := interopInputShapes[name]
		if opt, ok := interopOptimizers[strings.TrimPrefix(name, "mlp_")]; ok {
			m, shapes = ioMLP(t, opt()), [][]int{{3, 4}}
		} else {
			m = interopModels[name](t)
		}
		r := rand.New(rand.NewPCG(uint64(k+1), 99))
		ioTrain(t, m, name, r)
		var ins []interopArray
		for _, s := range shapes {
			ins = append(ins, ioRandom(r, s, 1, 0))
		}
		c := interopCase{Name: name, Files: map[string]string{"keras": name + ".keras", "weights": name + ".weights.h5"}, Inputs: ins}
		c.Outputs = ioOutputs(t, m, ins)
		if err := m.Save(filepath.Join(dir, name+".keras")); err != nil {
			t.Fatal(err)
		}
		if err := m.SaveWeights(filepath.Join(dir, name+".weights.h5")); err != nil {
			t.Fatal(err)
		}
		if name != "subclass" { // Keras' legacy format holds no subclassed model
			if err := m.Save(filepath.Join(dir, name+"_legacy.h5")); err != nil {
				t.Fatal(err)
			}
			c.Files["legacy"] = name + "_legacy.h5"
		}
		if name != "resnet" && name != "two_io" { // a bias before BatchNormalization
			x, y := ioBatch(r, m, name, 4)
			xs, ys := ioArrays(x), ioArrays(y)
			if _, err := m.Fit(x, y, FitConfig{Epochs: 1, BatchSize: 4, NoShuffle: true, Verbose: VerboseSilent}); err != nil {
				t.Fatal(err)
			}
			c.Continue = &struct {
				X, Y    []interopArray
				Outputs []interopArray
			}{xs, ys, ioOutputs(t, m, ins)}
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ioOutputs is m's predictions on ins as arrays.
func ioOutputs(t *testing.T, m *Model, ins []interopArray) []interopArray {
	var out []interopArray
	for i, o := range ioPredict(t, m, ins) {
		shape := append([]int{ins[0].Shape[0]}, m.Outputs()[i].Shape()[1:]...)
		out = append(out, interopArray{Shape: shape, Data: o})
	}
	return out
}

// ioArrays lists the tensors of a Fit argument.
func ioArrays(v any) []interopArray {
	var ds []*tensor.Dense
	switch v := v.(type) {
	case *tensor.Dense:
		ds = []*tensor.Dense{v}
	case []*tensor.Dense:
		ds = v
	}
	out := make([]interopArray, len(ds))
	for i, d := range ds {
		out[i] = interopArray{Shape: d.Shape(), Data: append([]float32(nil), d.Data().([]float32)...)}
	}
	return out
}

func ioRandom(r *rand.Rand, shape []int, scale, shift float64) interopArray {
	n := 1
	for _, d := range shape {
		n *= d
	}
	a := interopArray{Shape: shape, Data: make([]float32, n)}
	for i := range a.Data {
		a.Data[i] = float32(r.NormFloat64()*scale + shift)
	}
	return a
}

// ioTrain runs two steps of Fit (batches of 4) on random data.
func ioTrain(t *testing.T, m *Model, name string, r *rand.Rand) {
	t.Helper()
	x, y := ioBatch(r, m, name, 8)
	if _, err := m.Fit(x, y, FitConfig{Epochs: 1, BatchSize: 4, NoShuffle: true, Verbose: VerboseSilent}); err != nil {
		t.Fatal(err)
	}
}

// ioBatch is n random examples for the model called name.
func ioBatch(r *rand.Rand, m *Model, name string, n int) (x, y any) {
	labels := func(classes int) *tensor.Dense {
		l := make([]float32, n)
		for i := range l {
			l[i] = float32(r.IntN(classes))
		}
		return tensor.New(tensor.WithShape(n), tensor.WithBacking(l))
	}
	switch {
	case name == "rnn":
		return ioRandom(r, []int{n, 5, 3}, 1, 0).dense(), ioRandom(r, []int{n, 2}, 1, 0).dense()
	case name == "nested":
		return ioRandom(r, []int{n, 4}, 1, 2).dense(), ioRandom(r, []int{n, 3}, 1, 0).dense()
	case name == "attention":
		return []*tensor.Dense{ioRandom(r, []int{n, 5, 3}, 1, 0).dense(), ioRandom(r, []int{n, 4, 3}, 1, 0).dense()},
			[]*tensor.Dense{ioRandom(r, []int{n, 5, 3}, 1, 0).dense(), ioRandom(r, []int{n, 5, 3}, 1, 0).dense(), ioRandom(r, []int{n, 5, 3}, 1, 0).dense()}
	case name == "subclass":
		return ioRandom(r, []int{n, 4}, 1, 0).dense(), ioRandom(r, []int{n, 2}, 1, 0).dense()
	case strings.HasPrefix(name, "mlp_"):
		return ioRandom(r, []int{n, 4}, 1, 0).dense(), ioRandom(r, []int{n, 3}, 1, 0).dense()
	case name == "two_io":
		return []*tensor.Dense{ioRandom(r, []int{n, 6}, 1, 3).dense(), ioRandom(r, []int{n, 5}, 1, 0).dense()},
			[]*tensor.Dense{labels(3), ioRandom(r, []int{n, 1}, 1, 0).dense()}
	}
	s := append([]int{n}, m.Inputs()[0].Shape()[1:]...)
	return ioRandom(r, s, 2, 1).dense(), labels(10)
}

// interopKerasCannotLoadYet lists the classes whose saved files Python Keras
// does not load back equal yet (a known gap, not hidden): Keras builds
// Hashing and Discretization for integer inputs and refuses the float32
// Sequential around them, and IntegerLookup keeps its vocabulary, OOV
// indices and idf weights in the config where Keras 3 expects assets and
// variables. gokeras loads its own files and Keras' configs of these
// classes (TestPreprocessingLayersMatchKeras).
var interopKerasCannotLoadYet = map[string]bool{"Hashing": true, "Discretization": true, "IntegerLookup": true}

// TestInteropWriteLayersForKeras writes, for interop_check.py (only with
// GOKERAS_INTEROP_OUT set), a Sequential model around each single-input
// layer of the Keras vectors (made from Keras' own get_config, with
// Keras' weights): Python Keras must load every config gokeras writes.
func TestInteropWriteLayersForKeras(t *testing.T) {
	dir := os.Getenv("GOKERAS_INTEROP_OUT")
	if dir == "" {
		t.Skip("set GOKERAS_INTEROP_OUT=DIR to write gokeras' files for tools/keras_reference/interop_check.py")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Every vector file of single-input layers (the schema of layers.json).
	files, err := filepath.Glob("testdata/keras/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Cases []struct {
				kerasLayerCase
				AdaptX []float32 `json:"adapt_x"`
			}
		}
		if json.Unmarshal(b, &f) != nil {
			continue
		}
		for _, ac := range f.Cases {
			tc := ac.kerasLayerCase
			if tc.ClassName == "" || tc.Config == nil || len(tc.Shape) < 2 || len(tc.X) == 0 {
				continue // not a single-input layer case
			}
			if ac.AdaptX != nil { // state learned by Adapt: TestPreprocessingLayersMatchKeras covers it
				continue
			}
			if interopKerasCannotLoadYet[tc.ClassName] {
				continue
			}
			if tc.ClassName == "Lambda" { // Python code: not saved, as in Keras' safe mode
				continue
			}
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatalf("%s: %v", tc.Name, err)
			}
			m, err := NewSequential(l)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.build(tc.Shape[1:]); err != nil {
				t.Fatalf("%s: %v", tc.Name, err)
			}
			for i, w := range tc.Weights {
				if err := l.Weights()[i].Assign(w.Value); err != nil {
					t.Fatalf("%s: %v", tc.Name, err)
				}
			}
			name := "layer_" + tc.Name
			ins := []interopArray{{Shape: tc.Shape, Data: tc.X}}
			c := interopCase{Name: name, Files: map[string]string{"keras": name + ".keras", "weights": name + ".weights.h5"}, Inputs: ins, Outputs: ioOutputs(t, m, ins)}
			if err := m.Save(filepath.Join(dir, name+".keras")); err != nil {
				t.Fatalf("%s: %v", tc.Name, err)
			}
			if err := m.SaveWeights(filepath.Join(dir, name+".weights.h5")); err != nil {
				t.Fatalf("%s: %v", tc.Name, err)
			}
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
