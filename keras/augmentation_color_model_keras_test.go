package keras

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestAugmentationColorModelMatchesKeras loads the .keras file Keras
// saved with the colour augmentation layers (all but Equalization, which
// Keras 3.15.1 cannot call in a functional model: its compute_output_spec
// returns its input, a cycle) in a Sequential block before a Conv2D and
// a Dense (tools/keras_reference/augmentation_color_vectors.py): every
// class loads, and the model predicts Keras' outputs (in inference
// AutoContrast stretches each channel, the others pass their input
// through), then saves and reloads predicting the same.
func TestAugmentationColorModelMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/augmentation_color_model.json")
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
	for _, c := range colorLayers {
		if !have[c] && c != "Equalization" {
			t.Errorf("the model file does not use the registered class %s", c)
		}
	}
	checkPredictsLikeKeras(t, m, []kerasInput{{ref.XShape, ref.X}}, ref.PredShape, ref.Predictions)
}
