package keras

import (
	"math"
	"path/filepath"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// maskPropagationModels builds in Go the models of
// tools/keras_reference/mask_propagation_vectors.py, layer for layer, so
// that Keras' weight files load into them by place.
var maskPropagationModels = map[string]func() ([]*layers.KerasTensor, *layers.KerasTensor){
	"chain": func() ([]*layers.KerasTensor, *layers.KerasTensor) {
		i := layers.Input([]int{6})
		h := layers.Apply(layers.NewDropout(0.5), mpEmbed(i))
		h = layers.Apply(layers.NewLayerNormalization(), layers.Apply(layers.NewDense(5, layers.WithActivation("relu")), h))
		return []*layers.KerasTensor{i}, layers.Apply(layers.NewDense(2), layers.Apply(layers.NewLSTM(3), h))
	},
	"add": func() ([]*layers.KerasTensor, *layers.KerasTensor) {
		a, b := layers.Input([]int{6}), layers.Input([]int{6})
		h := layers.AddTensors(mpEmbed(a), mpEmbed(b))
		h = layers.Apply(layers.NewGRU(3, layers.WithReturnSequences(true)), h)
		return []*layers.KerasTensor{a, b}, layers.Apply(layers.NewGlobalAveragePooling1D(), h)
	},
	"add_unmasked": func() ([]*layers.KerasTensor, *layers.KerasTensor) {
		a, b := layers.Input([]int{6}), layers.Input([]int{6})
		h := layers.AddTensors(mpEmbed(a), layers.Apply(layers.NewConv1D(4, 1), mpEmbed(b)))
		return []*layers.KerasTensor{a, b}, layers.Apply(layers.NewSimpleRNN(3), h)
	},
	"concat_steps": func() ([]*layers.KerasTensor, *layers.KerasTensor) {
		a, b := layers.Input([]int{6}), layers.Input([]int{6})
		h := layers.ConcatenateTensors(1, mpEmbed(a), mpEmbed(b))
		return []*layers.KerasTensor{a, b}, layers.Apply(layers.NewLSTM(2), h)
	},
	"concat_steps_unmasked": func() ([]*layers.KerasTensor, *layers.KerasTensor) {
		a, f := layers.Input([]int{6}), layers.Input([]int{6, 4})
		h := layers.ConcatenateTensors(1, mpEmbed(a), f)
		return []*layers.KerasTensor{a, f}, layers.Apply(layers.NewLSTM(2), h)
	},
	"concat_features": func() ([]*layers.KerasTensor, *layers.KerasTensor) {
		a, b := layers.Input([]int{6}), layers.Input([]int{6})
		h := layers.ConcatenateTensors(-1, mpEmbed(a), layers.Apply(layers.NewDense(3), mpEmbed(b)))
		return []*layers.KerasTensor{a, b}, layers.Apply(layers.NewGRU(2), h)
	},
}

func mpEmbed(x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.NewEmbedding(12, 4, layers.WithMaskZero(true)), x)
}

// TestMaskPropagationMatchesKeras: Embedding(mask_zero)'s mask reaches the
// recurrent layers and the pooling through Dropout, Dense,
// LayerNormalization, Add and Concatenate as Keras' compute_mask carries
// it (and not through Conv1D; an unmasked input of Concatenate counting
// as all steps kept), on token rows padded in the middle, at the start and
// at the end. Without the propagation every case but add_unmasked would
// run its recurrent layer or pooling over the padded steps.
func TestMaskPropagationMatchesKeras(t *testing.T) {
	type mpCase struct {
		Name        string
		Inputs      [][]float32
		InputShapes [][]int `json:"input_shapes"`
		Shape       []int
		Y           []float64
		Weights     string
	}
	dir := filepath.Join("testdata", "keras")
	cases := kerasvectors.Read[mpCase](t, filepath.Join(dir, "mask_propagation.json"))
	if len(cases) != len(maskPropagationModels) {
		t.Fatalf("%d cases in the file, %d models here", len(cases), len(maskPropagationModels))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			build, ok := maskPropagationModels[c.Name]
			if !ok {
				t.Fatalf("no Go model for case %q", c.Name)
			}
			layers.ClearSession()
			ins, out := build()
			m, err := NewModel(ins, []*layers.KerasTensor{out})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.LoadWeights(filepath.Join(dir, c.Weights)); err != nil {
				t.Fatal(err)
			}
			xs := make([]*tensor.Dense, len(c.Inputs))
			for i, flat := range c.Inputs {
				xs[i] = tensor.New(tensor.WithShape(c.InputShapes[i]...), tensor.WithBacking(flat))
			}
			var x any = xs
			if len(xs) == 1 {
				x = xs[0]
			}
			y, err := m.Predict(x, PredictConfig{})
			if err != nil {
				t.Fatal(err)
			}
			got := y.Data().([]float32)
			if len(got) != len(c.Y) {
				t.Fatalf("%d outputs, Keras %d (shape %v)", len(got), len(c.Y), c.Shape)
			}
			worst := 0.0
			for i, w := range c.Y {
				d := math.Abs(float64(got[i]) - w)
				worst = math.Max(worst, d)
				if d > 1e-5+1e-5*math.Abs(w) {
					t.Errorf("output %d: %g, Keras %g", i, got[i], w)
				}
			}
			t.Logf("worst difference %.3g", worst)
		})
	}
}

// TestMaskPropagationMixedPolicy: under mixed_float16 the layers' inputs
// are cast to float16 before their call, and the cast keeps the mask: the
// chain model (Keras' weights) predicts as in float32 within float16's
// precision, which it would not with its LSTM running over the padding.
func TestMaskPropagationMixedPolicy(t *testing.T) {
	type mpCase struct {
		Name        string
		Inputs      [][]float32
		InputShapes [][]int `json:"input_shapes"`
		Y           []float64
		Weights     string
	}
	dir := filepath.Join("testdata", "keras")
	var c mpCase
	for _, k := range kerasvectors.Read[mpCase](t, filepath.Join(dir, "mask_propagation.json")) {
		if k.Name == "chain" {
			c = k
		}
	}
	if c.Name == "" {
		t.Fatal("no chain case")
	}
	if err := mixedprecision.SetGlobalPolicy("mixed_float16"); err != nil {
		t.Fatal(err)
	}
	defer mixedprecision.SetGlobalPolicy("float32")
	layers.ClearSession()
	ins, out := maskPropagationModels["chain"]()
	m, err := NewModel(ins, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadWeights(filepath.Join(dir, c.Weights)); err != nil {
		t.Fatal(err)
	}
	y, err := m.Predict(tensor.New(tensor.WithShape(c.InputShapes[0]...), tensor.WithBacking(c.Inputs[0])), PredictConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	switch d := y.Data().(type) {
	case []float32:
		for _, v := range d {
			got = append(got, float64(v))
		}
	default:
		t.Fatalf("prediction of type %T", d)
	}
	for i, w := range c.Y {
		if d := math.Abs(got[i] - w); d > 1e-2+1e-2*math.Abs(w) {
			t.Errorf("output %d: %g under mixed_float16, Keras (float32) %g", i, got[i], w)
		}
	}
}
