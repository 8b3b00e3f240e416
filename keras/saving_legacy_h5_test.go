package keras

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// keras2Config is a model_config as tf.keras 2 writes it: batch_input_shape
// on the InputLayer, dtypes as strings, initializers without modules.
const keras2Config = `{"class_name": "Sequential", "config": {"name": "sequential", "layers": [
 {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 4], "dtype": "float32", "sparse": false, "ragged": false, "name": "dense_input"}},
 {"class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 3, "activation": "relu", "use_bias": true,
  "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
  "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
 {"class_name": "Dense", "config": {"name": "dense_1", "trainable": true, "dtype": "float32", "units": 2, "activation": "linear", "use_bias": true,
  "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
  "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]}}`

// keras2Weights is the weights part of a tf.keras 2 file: layer_names and
// weight_names as fixed-length byte strings, datasets named "kernel:0".
func keras2Weights(g *hdf5.Group, k1, b1, k2, b2 []float32) {
	str := func(name string, s ...string) hdf5.Attr {
		return hdf5.Attr{Name: name, Shape: []int{len(s)}, Value: s, FixedStrings: true}
	}
	g.Attrs = append(g.Attrs, str("layer_names", "dense", "dense_1"),
		hdf5.Attr{Name: "backend", Value: []string{"tensorflow"}}, hdf5.Attr{Name: "keras_version", Value: []string{"2.15.0"}})
	layer := func(name string, in, out int, k, b []float32) *hdf5.Group {
		return &hdf5.Group{Name: name, Attrs: []hdf5.Attr{str("weight_names", name+"/kernel:0", name+"/bias:0")},
			Groups: []*hdf5.Group{{Name: name, Datasets: []*hdf5.Dataset{
				{Name: "bias:0", Shape: []int{out}, Value: b},
				{Name: "kernel:0", Shape: []int{in, out}, Value: k},
			}}}}
	}
	g.Groups = append(g.Groups, layer("dense", 4, 3, k1, b1), layer("dense_1", 3, 2, k2, b2))
}

func legacyValues(n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = scale * float32(math.Sin(float64(3*i+1)))
	}
	return v
}

// TestLoadKeras2Files reads a tf.keras 2 whole-model file and a
// weights-only file, and predicts relu(x·K1+b1)·K2+b2 computed by hand.
func TestLoadKeras2Files(t *testing.T) {
	k1, b1, k2, b2 := legacyValues(12, 0.7), legacyValues(3, 0.1), legacyValues(6, -0.9), legacyValues(2, 0.2)
	dir := t.TempDir()
	whole := &hdf5.Group{Name: "/", Attrs: []hdf5.Attr{
		{Name: "model_config", Value: []string{keras2Config}},
		{Name: "keras_version", Value: []string{"2.15.0"}},
		{Name: "backend", Value: []string{"tensorflow"}},
		{Name: "training_config", Value: []string{`{"loss": "mse", "metrics": null, "loss_weights": null, "optimizer_config": {"class_name": "Adam", "config": {"name": "Adam", "learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": false}}}`}},
	}}
	mw := &hdf5.Group{Name: "model_weights"}
	keras2Weights(mw, k1, b1, k2, b2)
	whole.Groups = append(whole.Groups, mw)
	wholePath := filepath.Join(dir, "model.h5")
	if err := hdf5.WriteFile(wholePath, whole); err != nil {
		t.Fatal(err)
	}
	weights := &hdf5.Group{Name: "/"}
	keras2Weights(weights, k1, b1, k2, b2)
	weightsPath := filepath.Join(dir, "model_weights.h5")
	if err := hdf5.WriteFile(weightsPath, weights); err != nil {
		t.Fatal(err)
	}

	x := legacyValues(8, 1.5) // 2 examples
	want := make([]float32, 4)
	for n := range 2 {
		h := make([]float64, 3)
		for j := range 3 {
			h[j] = float64(b1[j])
			for i := range 4 {
				h[j] += float64(x[n*4+i]) * float64(k1[i*3+j])
			}
			h[j] = math.Max(h[j], 0)
		}
		for j := range 2 {
			o := float64(b2[j])
			for i := range 3 {
				o += h[i] * float64(k2[i*2+j])
			}
			want[n*2+j] = float32(o)
		}
	}
	check := func(what string, m *Model) {
		t.Helper()
		p, err := m.Predict(tensor.New(tensor.WithShape(2, 4), tensor.WithBacking(append([]float32(nil), x...))), PredictConfig{Verbose: VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range p.Data().([]float32) {
			if math.Abs(float64(g-want[i])) > 1e-5 {
				t.Fatalf("%s: output %d = %v, want %v", what, i, g, want[i])
			}
		}
	}
	m, err := LoadModel(wholePath)
	if err != nil {
		t.Fatal(err)
	}
	check("LoadModel", m)
	if m.Optimizer() == nil || typeName(m.Optimizer()) != "Adam" {
		t.Errorf("the training config's Adam is not compiled in: %v", m.Optimizer())
	}
	layers.ClearSession()
	fresh := MustSequential(layers.NewDense(3, layers.WithActivation("relu"), layers.WithInputShape(4)), layers.NewDense(2))
	if err := fresh.LoadWeights(weightsPath); err != nil {
		t.Fatal(err)
	}
	check("LoadWeights", fresh)
	// A weights-only file is not a model.
	if _, err := LoadModel(weightsPath); err == nil {
		t.Error("LoadModel of a weights-only file: no error")
	}
	// Another architecture: the first mismatch is named.
	other := MustSequential(layers.NewDense(5, layers.WithInputShape(4)), layers.NewDense(2))
	if err := other.LoadWeights(weightsPath); err == nil {
		t.Error("LoadWeights into another architecture: no error")
	} else {
		t.Log(err)
	}
}

// TestSaveLegacyH5RoundTrip: Save to a .h5 name writes the legacy format,
// which LoadModel reads back to a model predicting the same (the
// interop models: Sequential, functional with two inputs, recurrent,
// nested); interop_check.py checks that Python Keras reads it too.
func TestSaveLegacyH5RoundTrip(t *testing.T) {
	for _, name := range []string{"cnn", "two_io", "rnn", "nested"} {
		m := interopModels[name](t)
		path := filepath.Join(t.TempDir(), name+".h5")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := LoadModel(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var ins []interopArray
		for k, s := range interopInputShapes[name] {
			ins = append(ins, interopArray{Shape: s, Data: legacyValues(s[0]*s[1]*max(1, sizeOf(s[2:])), float32(k+1))})
		}
		want, got := ioPredict(t, m, ins), ioPredict(t, back, ins)
		for i := range want {
			if !slices.Equal(want[i], got[i]) {
				t.Errorf("%s: output %d differs after a legacy .h5 round trip", name, i)
			}
		}
		if back.Optimizer() == nil || typeName(back.Optimizer()) != typeName(m.Optimizer()) {
			t.Errorf("%s: compiled with %v, want %s", name, back.Optimizer(), typeName(m.Optimizer()))
		}
	}
}

func sizeOf(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}
