package keras

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// A checkpoint keyed as gokeras wrote them before structure keys
// ("model/layer_with_weights-<i>/<weight>", with the names of then:
// DepthwiseConv2D's "depthwise_kernel", LayerScale's "gamma") restores into
// a model whose variables now have Keras 3's names ("kernel", "variable").
func TestLegacyCheckpointWeightNames(t *testing.T) {
	layers.ClearSession()
	m, err := NewSequential(
		layers.NewDepthwiseConv2D(3, layers.WithInputShape(5, 5, 2)),
		layers.NewLayerScale(0.5, 2),
		layers.NewFlatten(),
		layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.npz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := newNPZWriter(f)
	want := map[string][]float32{}
	for i, v := range m.Weights() {
		data := make([]float32, v.Shape().Size())
		for j := range data {
			data[j] = float32(i) + float32(j)/100
		}
		want[v.Name()] = data
	}
	old := map[string]string{ // the names of the variables in the old layout
		"depthwise_conv2d/kernel": "model/layer_with_weights-0/depthwise_kernel",
		"depthwise_conv2d/bias":   "model/layer_with_weights-0/bias",
		"layer_scale/variable":    "model/layer_with_weights-1/gamma",
		"dense/kernel":            "model/layer_with_weights-2/kernel",
		"dense/bias":              "model/layer_with_weights-2/bias",
	}
	for _, v := range m.Weights() {
		key, ok := old[v.Name()]
		if !ok {
			t.Fatalf("variable %s: not in the old layout", v.Name())
		}
		if err := w.addFloat32(key, v.Shape(), want[v.Name()]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := NewCheckpoint(m, nil).Restore(path); err != nil {
		t.Fatal(err)
	}
	for _, v := range m.Weights() {
		if !slices.Equal(v.Numpy(), want[v.Name()]) {
			t.Errorf("%s was not restored", v.Name())
		}
	}
}
