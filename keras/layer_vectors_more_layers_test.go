package keras

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The classes of issue 31 against real Keras (vectors of
// tools/keras_reference/more_layers_vectors.py).

// closeToKeras reports the values of got farther from want than 1e-5
// (relative, absolute below magnitude 1) and returns the worst difference.
func closeToKeras(t *testing.T, what string, got, want []float32, tol float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, Keras %d", what, len(got), len(want))
	}
	worst, bad := 0.0, 0
	for i := range want {
		w := float64(want[i])
		e := math.Abs(float64(got[i])-w) / math.Max(1, math.Abs(w))
		worst = max(worst, e)
		if !(e <= tol) {
			if bad < 3 {
				t.Errorf("%s[%d] = %v, Keras %v", what, i, got[i], w)
			}
			bad++
		}
	}
	return worst
}

// TestMoreLayersMatchKeras: each single-input class of issue 31 made from
// Keras' config through LayerFromConfig, given Keras' weights, computes
// Keras' inference output and gradients to 1e-5.
func TestMoreLayersMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasLayerCase](t, "testdata/keras/more_layers.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			s := ops.Shape(tc.Shape)
			out, err := layers.OutputShape(l, []ops.Shape{append(ops.Shape{-1}, s[1:]...)})
			if err != nil {
				t.Fatal(err)
			}
			if want := append(ops.Shape{-1}, tc.YShape[1:]...); !out.Equal(want) {
				t.Errorf("symbolic output shape %v, Keras %v", out, want)
			}
			ws := l.Weights()
			if len(ws) != len(tc.Weights) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.Weights))
			}
			for i, w := range tc.Weights {
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) {
					t.Fatalf("weight %d (%s) has shape %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				if err := ws[i].Assign(w.Value); err != nil {
					t.Fatal(err)
				}
			}
			compareLayerWithKeras(t, l, tc, nil)
		})
	}
}

// TestMoreMergeLayersMatchKeras: the merge layers (Average, Subtract,
// Maximum with ties, Minimum, Dot with its axes and normalize) compute
// Keras' output and the gradients with respect to every input, to 1e-5.
func TestMoreMergeLayersMatchKeras(t *testing.T) {
	for _, tc := range kerasvectors.Read[kerasMultiInputCase](t, "testdata/keras/more_layers_multi_input.json") {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			var shapes []ops.Shape
			for _, in := range tc.Inputs {
				shapes = append(shapes, append(ops.Shape{-1}, in.Shape[1:]...))
			}
			out, err := layers.OutputShape(l, shapes)
			if err != nil {
				t.Fatal(err)
			}
			if want := append(ops.Shape{-1}, tc.YShape[1:]...); !out.Equal(want) {
				t.Errorf("symbolic output shape %v, Keras %v", out, want)
			}
			tr := ops.NewTrace(false, 0, 1)
			var xs []ops.Tensor
			var vars []*ops.Variable
			for i, in := range tc.Inputs {
				v := ops.NewVariable("x"+string(rune('0'+i)), ops.Shape(in.Shape), in.X, true)
				vars = append(vars, v)
				xs = append(xs, tr.Read(v))
			}
			y := l.Call(xs, false)
			if !y.Shape().Equal(ops.Shape(tc.YShape)) {
				t.Fatalf("output shape %v, Keras %v", y.Shape(), tc.YShape)
			}
			grads, err := ops.Gradients(ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false), vars)
			if err != nil {
				t.Fatal(err)
			}
			p, err := engine.Compile(tr, append([]ops.Tensor{y}, grads...))
			if err != nil {
				t.Fatal(err)
			}
			vals, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			worst := closeToKeras(t, "y", vals[0].Data, tc.Y, 1e-5)
			if len(tc.Dxs) != len(vars) {
				t.Fatalf("%d input gradients, Keras %d", len(vars), len(tc.Dxs))
			}
			for i, g := range tc.Dxs {
				worst = max(worst, closeToKeras(t, "d"+vars[i].Name(), vals[1+i].Data, g, 1e-5))
			}
			t.Logf("worst relative difference from Keras %.3g", worst)
		})
	}
}

// TestConstraintsMatchKeras: each constraint made from Keras' serialised
// config projects a weight as Keras' constraint does, to 1e-6.
func TestConstraintsMatchKeras(t *testing.T) {
	type constraintCase struct {
		Name, Constraint string
		Config           map[string]any
		Shape            []int
		W, Projected     []float32
	}
	for _, tc := range kerasvectors.Read[constraintCase](t, "testdata/keras/constraints.json") {
		t.Run(tc.Name, func(t *testing.T) {
			c := &cfgReader{m: map[string]any{"kernel_constraint": tc.Config}}
			k := c.constraint("kernel_constraint")
			if c.err != nil {
				t.Fatal(c.err)
			}
			if k.Name() != tc.Constraint {
				t.Errorf("class %s, Keras %s", k.Name(), tc.Constraint)
			}
			w := slices.Clone(tc.W)
			k.Project(w, ops.Shape(tc.Shape))
			closeToKeras(t, "projected", w, tc.Projected, 1e-6)
			// The config comes back as Keras wrote it.
			want, _ := tc.Config["config"].(map[string]any)
			if !svJSONEqual(t, k.Config(), want) {
				t.Errorf("config %v, Keras %v", k.Config(), want)
			}
		})
	}
}

// TestConstraintsTrainLikeKeras: models whose layers carry constraints
// (on Conv1D, Dense, LayerNormalization, BatchNormalization,
// GroupNormalization, Conv2D, DepthwiseConv2D, SeparableConv2D and
// Embedding weights), gamma/beta regularizers and activity regularizers,
// saved compiled by Keras before training, load in gokeras and train two
// epochs of SGD to Keras' losses and weights: the regularizers enter the
// loss as Keras adds them, and every update is followed by the
// projection.
func TestConstraintsTrainLikeKeras(t *testing.T) {
	type trainCase struct {
		Name, File   string
		Shape        []int
		Integer      bool
		X, Y         []float32
		BatchSize    int `json:"batch_size"`
		Epochs       int
		Loss         []float64
		WeightsAfter []struct {
			Path  string
			Shape []int
			Value []float32
		} `json:"weights_after"`
	}
	for _, tc := range kerasvectors.Read[trainCase](t, "testdata/keras/constraints_train.json") {
		t.Run(tc.Name, func(t *testing.T) {
			m, err := LoadModel("testdata/keras/" + tc.File)
			if err != nil {
				t.Fatal(err)
			}
			constrained := 0
			for _, w := range m.Weights() {
				if ops.VariableConstraint(w) != nil {
					constrained++
				}
			}
			if constrained == 0 {
				t.Fatal("no weight of the loaded model has a constraint")
			}
			x := tensor.New(tensor.WithShape(tc.Shape...), tensor.WithBacking(slices.Clone(tc.X)))
			y := tensor.New(tensor.WithShape(tc.Shape[0], len(tc.Y)/tc.Shape[0]), tensor.WithBacking(slices.Clone(tc.Y)))
			h, err := m.Fit(x, y, FitConfig{BatchSize: tc.BatchSize, Epochs: tc.Epochs, NoShuffle: true, Verbose: VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			got := h.History["loss"]
			for i, want := range tc.Loss {
				if i >= len(got) || math.Abs(got[i]-want) > 1e-4*math.Max(1, math.Abs(want)) {
					t.Errorf("loss after epoch %d: %v, Keras %v", i+1, got, tc.Loss)
					break
				}
			}
			ws := m.Weights()
			if len(ws) != len(tc.WeightsAfter) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.WeightsAfter))
			}
			worst := 0.0
			for i, w := range tc.WeightsAfter {
				worst = max(worst, closeToKeras(t, w.Path, ws[i].Numpy(), w.Value, 1e-4))
			}
			t.Logf("%d constrained weights; worst relative difference from Keras' trained weights %.3g", constrained, worst)
		})
	}
}

// TestMoreLayersModelMatchesKeras: a model Keras saved with every class of
// issue 31 in it (noise layers included, the identity in inference) loads
// in gokeras and predicts Keras' outputs.
func TestMoreLayersModelMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/more_layers_model.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		File        string
		A, B        []float32
		Shape       []int
		Predictions []float32
		PredShape   []int `json:"pred_shape"`
		Classes     []string
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel("testdata/keras/" + ref.File)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range m.Layers() {
		have[l.ClassName()] = true
	}
	for _, c := range ref.Classes {
		if !have[c] {
			t.Errorf("the loaded model has no %s layer", c)
		}
	}
	for _, c := range moreLayers {
		if !have[c] {
			t.Errorf("the model file does not use the registered class %s", c)
		}
	}
	xa := tensor.New(tensor.WithShape(ref.Shape...), tensor.WithBacking(slices.Clone(ref.A)))
	xb := tensor.New(tensor.WithShape(ref.Shape...), tensor.WithBacking(slices.Clone(ref.B)))
	got, err := m.Predict([]*tensor.Dense{xa, xb}, PredictConfig{Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Shape(), tensor.Shape(ref.PredShape)) {
		t.Fatalf("prediction shape %v, Keras %v", got.Shape(), ref.PredShape)
	}
	worst := closeToKeras(t, "prediction", got.Data().([]float32), ref.Predictions, 1e-5)
	t.Logf("worst relative difference from Keras' predictions %.3g", worst)
}
