package keras_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// GetConfig writes None dimensions and an Input's dtype as Keras does
// (null, "int32"), and ModelFromConfig reads the None dimensions back,
// for a functional model and a Sequential one.
func TestConfigNoneDimensions(t *testing.T) {
	layers.ClearSession()
	x := layers.Input([]int{layers.None, 3}, layers.WithDtype("int32"), layers.WithName("ids"))
	f, err := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{layers.Apply(layers.NewDense(2), x)})
	if err != nil {
		t.Fatal(err)
	}
	seq := keras.MustSequential(layers.NewInputLayer([]int{layers.None, 4}), layers.NewDense(1))
	for _, m := range []*keras.Model{f, seq} {
		cfg, err := m.GetConfig()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		in := back["layers"].([]any)[0].(map[string]any)["config"].(map[string]any)
		if fmt.Sprint(in["batch_shape"]) != fmt.Sprint([]any{nil, nil, float64(m.Inputs()[0].Shape()[2])}) ||
			in["dtype"] != m.Inputs()[0].Dtype() {
			t.Errorf("%s: InputLayer config %v", m.Name(), in)
		}
		m2, err := keras.ModelFromConfig(back)
		if err != nil {
			t.Fatal(err)
		}
		if m2.Inputs()[0].Shape().String() != m.Inputs()[0].Shape().String() || m2.Outputs()[0].Shape().String() != m.Outputs()[0].Shape().String() {
			t.Errorf("%s: rebuilt %v -> %v, want %v -> %v", m.Name(), m2.Inputs()[0].Shape(), m2.Outputs()[0].Shape(), m.Inputs()[0].Shape(), m.Outputs()[0].Shape())
		}
	}
}
