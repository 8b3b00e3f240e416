package keras

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// TestAugmentationModelMatchesKeras loads the .keras file Keras saved
// with its common augmentation layers (RandomFlip, RandomRotation,
// RandomZoom, RandomTranslation, RandomContrast, RandomBrightness, their
// arguments other than the defaults) in a Sequential block, as keras.io's
// image classification tutorial has them, before a grouped Conv2D
// (tools/keras_reference/augmentation_model_vectors.py): every class
// loads, and the model predicts Keras' outputs (in inference the
// augmentation layers pass their input through).
func TestAugmentationModelMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/augmentation_model.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		File        string
		Classes     []string
		XShape      []int `json:"x_shape"`
		X           []float32
		PredShape   []int `json:"pred_shape"`
		Predictions []float32
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel("testdata/keras/" + ref.File)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	var walk func(ls []layers.Layer)
	walk = func(ls []layers.Layer) {
		for _, l := range ls {
			have[l.ClassName()] = true
			if sub, ok := l.(interface{ Layers() []layers.Layer }); ok {
				walk(sub.Layers())
			}
			if ml, ok := l.(*ModelLayer); ok {
				walk(ml.Model().Layers())
			}
		}
	}
	walk(m.Layers())
	for _, c := range ref.Classes {
		if !have[c] && c != "InputLayer" {
			t.Errorf("the loaded model has no %s layer", c)
		}
	}
	x := tensor.New(tensor.WithShape(ref.XShape...), tensor.WithBacking(slices.Clone(ref.X)))
	got, err := m.Predict(x, PredictConfig{Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Shape(), tensor.Shape(ref.PredShape)) {
		t.Fatalf("prediction shape %v, Keras %v", got.Shape(), ref.PredShape)
	}
	t.Logf("worst relative difference from Keras' predictions %.3g", closeToKeras(t, "prediction", got.Data().([]float32), ref.Predictions, 1e-5))
}
