package keras

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestGeomAugmentationModelMatchesKeras loads the .keras file Keras saved
// with RandomErasing, RandomGaussianBlur, RandomShear, RandomPerspective,
// MixUp, CutMix and RandAugment (arguments other than the defaults, seeds) in a
// Sequential block before a Conv2D and a Dense
// (tools/keras_reference/augmentation_geom_vectors.py): every class
// loads with Keras' arguments, and the model predicts Keras' outputs (in
// inference the seven pass their input through), also after gokeras saves
// and reloads it.
func TestGeomAugmentationModelMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/augmentation_geom_model.json")
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
	have := map[string]layers.Layer{}
	var walk func(ls []layers.Layer)
	walk = func(ls []layers.Layer) {
		for _, l := range ls {
			have[l.ClassName()] = l
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
		if have[c] == nil && c != "InputLayer" {
			t.Errorf("the loaded model has no %s layer", c)
		}
	}
	for class, seed := range map[string]int64{"RandomErasing": 21, "RandomGaussianBlur": 22, "RandomShear": 23, "RandomPerspective": 24, "MixUp": 25, "CutMix": 26, "RandAugment": 27} {
		if l := have[class]; l == nil || l.GetConfig()["seed"] != seed {
			t.Errorf("%s: loaded as %v, want seed %d", class, l, seed)
		}
	}
	checkPredictsLikeKeras(t, m, []kerasInput{{shape: ref.XShape, data: ref.X}}, ref.PredShape, ref.Predictions)
}
