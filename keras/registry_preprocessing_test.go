package keras

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"gorgonia.org/tensor"
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// preprocessingCase is one case of testdata/keras/preprocessing.json,
// written by tools/keras_reference/preprocessing_vectors.py.
type preprocessingCase struct {
	Name       string
	ClassName  string `json:"class_name"`
	Config     map[string]any
	AdaptShape []int     `json:"adapt_shape"`
	AdaptX     []float32 `json:"adapt_x"`
	Shape      []int
	X          []float32
	Weights    []struct {
		Name  string
		Shape []int
		Value []float32
	}
	YShape []int `json:"y_shape"`
	// Training: the output is Keras' in training (a random layer with a
	// range of one value, so deterministic).
	Training bool
	Y, Dy    []float32
	Dx       []float32
}

// adapter is a preprocessing layer that learns its state from data.
type adapter interface {
	Adapt(shape ops.Shape, data []float32) error
}

// TestPreprocessingLayersMatchKeras makes each layer from Keras' config,
// adapts it to Keras' data where the case did (and compares the learned
// weights with Keras'), then compares the output in inference and the
// gradient with respect to the input.
func TestPreprocessingLayersMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[preprocessingCase](t, "testdata/keras/preprocessing.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			layers.ClearSession()
			cfg := tc.Config
			if tc.AdaptShape != nil {
				// What Adapt learned is not taken from Keras' config.
				cfg = maps.Clone(cfg)
				delete(cfg, "bin_boundaries")
			}
			l, err := LayerFromConfig(tc.ClassName, cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := ops.Shape(tc.Shape)
			check := func(what string, got, want []float32) {
				t.Helper()
				if len(got) != len(want) {
					t.Fatalf("%s: %d values, Keras %d", what, len(got), len(want))
				}
				bad := 0
				for i := range want {
					w := float64(want[i])
					if e := math.Abs(float64(got[i])-w) / math.Max(1, math.Abs(w)); !(e <= 1e-5) {
						if bad < 3 {
							t.Errorf("%s[%d] = %v, Keras %v", what, i, got[i], w)
						}
						bad++
					}
				}
			}
			if tc.AdaptShape != nil {
				a, ok := l.(adapter)
				if !ok {
					t.Fatalf("%T has no Adapt", l)
				}
				if err := a.Adapt(ops.Shape(tc.AdaptShape), tc.AdaptX); err != nil {
					t.Fatal(err)
				}
				if want, ok := tc.Config["bin_boundaries"].([]any); ok {
					got, _ := l.GetConfig()["bin_boundaries"].([]any)
					w32, g32 := make([]float32, len(want)), make([]float32, len(got))
					for i := range want {
						w32[i] = float32(want[i].(float64))
					}
					for i := range got {
						g32[i] = float32(got[i].(float64))
					}
					check("bin_boundaries", g32, w32)
				}
			} else if _, err := layers.OutputShape(l, []ops.Shape{append(ops.Shape{-1}, s[1:]...)}); err != nil {
				t.Fatal(err)
			}
			ws := l.Weights()
			if len(ws) != len(tc.Weights) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.Weights))
			}
			for i, w := range tc.Weights {
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) {
					t.Fatalf("weight %d (%s) has shape %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				check(ws[i].Name(), ws[i].Numpy(), w.Value)
			}
			tr := ops.NewTrace(false, 0, 1)
			xv := ops.NewVariable("x", s, tc.X, true)
			y := l.Call([]ops.Tensor{tr.Read(xv)}, tc.Training)
			if !y.Shape().Equal(ops.Shape(tc.YShape)) {
				t.Fatalf("output shape %v, Keras %v", y.Shape(), tc.YShape)
			}
			outs := []ops.Tensor{y}
			if tc.Dx != nil {
				loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false)
				g, err := ops.Gradients(loss, []*ops.Variable{xv})
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, g...)
			}
			p, err := engine.Compile(tr, outs)
			if err != nil {
				t.Fatal(err)
			}
			vals, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			check("y", vals[0].Data, tc.Y)
			if tc.Dx != nil {
				check("dx", vals[1].Data, tc.Dx)
			}
			// The config round-trips: the layer made again from ours
			// reports the same config.
			cfg = l.GetConfig()
			l2, err := LayerFromConfig(tc.ClassName, cfg)
			if err != nil {
				t.Fatalf("from our own config %v: %v", cfg, err)
			}
			for k, v := range cfg {
				if k == "name" {
					continue
				}
				if got := l2.GetConfig()[k]; !configEqual(got, v) {
					t.Errorf("config %s: %v after a round trip, was %v", k, got, v)
				}
			}
		})
	}
}

func configEqual(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !configEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !configEqual(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestSaveLoadPreprocessingModel: a model with an adapted Normalization
// (its mean, variance and count weights), Discretization, CategoryEncoding,
// IntegerLookup, Hashing, Resizing and CenterCrop saves to .keras and
// loads with the same config and predictions.
func TestSaveLoadPreprocessingModel(t *testing.T) {
	layers.ClearSession()
	norm := layers.NewNormalization(layers.NormalizationSettings{})
	if err := norm.Adapt(ops.Shape{4, 3}, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13}); err != nil {
		t.Fatal(err)
	}
	in := layers.Input([]int{3})
	a := layers.Apply(norm, in)
	b := layers.Apply(layers.NewDiscretization(layers.DiscretizationSettings{BinBoundaries: []float64{-1, 0, 1}, OutputMode: "count"}), in)
	lk := layers.NewIntegerLookup(layers.IntegerLookupSettings{OutputMode: "tf_idf"})
	if err := lk.Adapt(ops.Shape{2, 3}, []float32{1, 2, 2, 3, 1, 9}); err != nil {
		t.Fatal(err)
	}
	c := layers.Apply(lk, in)
	d := layers.Apply(layers.NewHashing(5, layers.HashingSettings{OutputMode: "multi_hot", Salt: &[2]uint64{1, 2}}), in)
	out := layers.Apply(layers.NewConcatenate(), a, b, c, d)
	img := layers.Input([]int{5, 6, 2})
	r := layers.Apply(layers.NewResizing(4, 4, layers.ResizingSettings{CropToAspectRatio: true}), img)
	r = layers.Apply(layers.NewCenterCrop(3, 2), r)
	m, err := NewModel([]*layers.KerasTensor{in, img}, []*layers.KerasTensor{out, r})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pre.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 2, 9, -0.5, 3, 0}))
	imgs := make([]float32, 2*5*6*2)
	for i := range imgs {
		imgs[i] = float32(i%7) - 3
	}
	xi := tensor.New(tensor.WithShape(2, 5, 6, 2), tensor.WithBacking(imgs))
	p1, err := m.PredictAll([]*tensor.Dense{x, xi}, PredictConfig{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := l.PredictAll([]*tensor.Dense{x, xi}, PredictConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1 {
		g, w := p2[i].Data().([]float32), p1[i].Data().([]float32)
		if !slices.Equal(g, w) {
			t.Errorf("output %d after loading %v, before %v", i, g, w)
		}
	}
	// The normalization of x's first row by the adapted statistics.
	if got := p1[0].Data().([]float32)[0]; math.Abs(float64(got)-(1-5.5)/math.Sqrt(11.25)) > 1e-6 {
		t.Errorf("normalized x[0] = %v, want %v", got, (1-5.5)/math.Sqrt(11.25))
	}
}

// TestOptimizerCommonOptionsFromConfig: a Keras optimizer config with
// use_ema and gradient accumulation reads back into those options (as
// loading a .keras file's compile config does), and bad values are errors.
func TestOptimizerCommonOptionsFromConfig(t *testing.T) {
	cfg := map[string]any{"class_name": "Adam", "config": map[string]any{
		"name": "adam", "learning_rate": 0.01, "use_ema": true, "ema_momentum": 0.9,
		"ema_overwrite_frequency": 3.0, "gradient_accumulation_steps": 2.0, "loss_scale_factor": nil}}
	o, err := optimizerFromConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := o.(optimizers.Optimizer).GetConfig()
	for k, want := range map[string]any{"use_ema": true, "ema_momentum": 0.9, "ema_overwrite_frequency": 3, "gradient_accumulation_steps": 2} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	for k, bad := range map[string]any{"use_ema": "yes", "ema_momentum": 2.0, "gradient_accumulation_steps": 1.0, "loss_scale_factor": 128.0} {
		c := map[string]any{"class_name": "SGD", "config": map[string]any{k: bad}}
		if _, err := optimizerFromConfig(c); err == nil {
			t.Errorf("%s = %v accepted", k, bad)
		}
	}
}

// TestFitFinalizesEMA: after Fit with use_ema the weights are the
// optimizer's moving averages (Keras' finalize_variable_values), and
// without it they are the trained weights.
func TestFitFinalizesEMA(t *testing.T) {
	for _, ema := range []bool{false, true} {
		layers.ClearSession()
		layers.SetRandomSeed(3)
		in := layers.Input([]int{4})
		out := layers.Apply(layers.NewDense(2), in)
		m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		opt := optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.UseEMA(ema), optimizers.EMAMomentum(0.5))
		if err := m.Compile(CompileConfig{Optimizer: opt, Loss: "mse"}); err != nil {
			t.Fatal(err)
		}
		xs := make([]float32, 8*4)
		ys := make([]float32, 8*2)
		for i := range xs {
			xs[i] = float32(i%5) - 2
		}
		for i := range ys {
			ys[i] = float32(i % 3)
		}
		x := tensor.New(tensor.WithShape(8, 4), tensor.WithBacking(xs))
		y := tensor.New(tensor.WithShape(8, 2), tensor.WithBacking(ys))
		if _, err := m.Fit(x, y, FitConfig{Epochs: 2, BatchSize: 4, Verbose: 0}); err != nil {
			t.Fatal(err)
		}
		kernel := m.TrainableVariables()[0]
		var avg *ops.Variable
		for _, v := range opt.Variables() {
			if v.Name() == opt.Name()+"/average/"+strings.ReplaceAll(kernel.Name(), "/", "_") {
				avg = v
			}
		}
		if !ema {
			if avg != nil {
				t.Fatal("an average without use_ema")
			}
			continue
		}
		if avg == nil {
			t.Fatalf("no average among %v", opt.Variables())
		}
		if !slices.Equal(kernel.Numpy(), avg.Numpy()) {
			t.Errorf("kernel after Fit %v, moving average %v", kernel.Numpy(), avg.Numpy())
		}
	}
}
