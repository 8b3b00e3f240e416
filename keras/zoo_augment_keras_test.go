package keras

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/ops"
)

// TestRandomTranslationMatchesKeras: Keras 3.15.1's RandomTranslation
// (testdata/zoo/augment.json, tools/keras_reference/zoo_vectors.py) with
// bilinear and nearest interpolation and every fill mode, in training mode
// with ranges of one value (no draw), loaded from its config: gokeras'
// outputs equal Keras' within 1e-5.
func TestRandomTranslationMatchesKeras(t *testing.T) {
	b, err := os.ReadFile("testdata/zoo/augment.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			ClassName     string `json:"class_name"`
			Config        map[string]any
			Input, Output struct {
				Shape []int
				Data  []float32
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("no cases")
	}
	for i, c := range doc.Cases {
		what := fmt.Sprintf("case %d (%v, %v, %v, %v)", i, c.Config["interpolation"], c.Config["fill_mode"], c.Config["height_factor"], c.Config["width_factor"])
		l, err := LayerFromConfig(c.ClassName, c.Config)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		y := layertest.Forward(t, l, true, ops.Value{Shape: ops.Shape(c.Input.Shape), Data: c.Input.Data})
		want := make([]float64, len(c.Output.Data))
		for j, v := range c.Output.Data {
			want[j] = float64(v)
		}
		layertest.AllClose(t, what, y.Data, want, 1e-5)
	}
}
