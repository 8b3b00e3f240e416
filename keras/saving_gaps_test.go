package keras_test

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// A two-output model compiled with per-output metrics keeps them through
// Save and LoadModel: Evaluate of the loaded model logs the same names and
// values as the original (both .keras and the legacy .h5 format).
func TestSavePerOutputMetrics(t *testing.T) {
	x, y, sw := twoInTwoOutData(8)
	for _, ext := range []string{".keras", ".h5"} {
		layers.ClearSession()
		m := twoInTwoOut(t)
		if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(),
			Loss:                    map[string]string{"out_a": "sparse_categorical_crossentropy", "out_b": "mse"},
			MetricsByOutput:         map[string][]any{"out_a": {"accuracy"}, "out_b": {"mae", "mse"}},
			WeightedMetricsByOutput: map[string][]any{"out_b": {"mae"}}}); err != nil {
			t.Fatal(err)
		}
		want, err := m.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 4, SampleWeight: sw, Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want["out_b_mae"]; !ok {
			t.Fatalf("logs before saving lack out_b_mae: %v", want)
		}
		path := filepath.Join(t.TempDir(), "m"+ext)
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := keras.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := back.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 4, SampleWeight: sw, Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: Evaluate after loading %v, before saving %v", ext, got, want)
		}
	}
}

// Every float hyperparameter of every optimizer is written as Python
// writes a float (0.0, not 0), or Keras' load_model refuses it
// ("momentum must be a float").
func TestSaveOptimizerFloats(t *testing.T) {
	for name, opt := range map[string]optimizers.Optimizer{
		"SGD":     optimizers.NewSGD(),
		"RMSprop": optimizers.NewRMSprop(),
		"Ftrl":    optimizers.NewFtrl(),
		"Adagrad": optimizers.NewAdagrad(optimizers.InitialAccumulatorValue(0)),
	} {
		layers.ClearSession()
		m := newSmallSequential(t)
		if err := m.Compile(keras.CompileConfig{Optimizer: opt, Loss: "mse"}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		cfg := readKerasMember(t, path, "config.json")
		i := strings.Index(cfg, `"optimizer":`)
		if i < 0 {
			t.Fatalf("%s: no optimizer in %s", name, cfg)
		}
		oc := cfg[i:]
		for _, k := range []string{"momentum", "rho", "beta", "initial_accumulator_value", "l1_regularization_strength", "learning_rate_power"} {
			j := strings.Index(oc, `"`+k+`":`)
			if j < 0 {
				continue
			}
			v := oc[j+len(k)+3:]
			v = v[:strings.IndexAny(v, ",}")]
			if !strings.ContainsAny(v, ".eE") {
				t.Errorf("%s: %s written as %s, not a float", name, k, v)
			}
		}
	}
}

// Save names the extensions it accepts, as Keras 3 does, and takes
// .hdf5 for the legacy format as Keras does.
func TestSaveExtensions(t *testing.T) {
	layers.ClearSession()
	m := newSmallSequential(t)
	dir := t.TempDir()
	err := m.Save(filepath.Join(dir, "model"))
	if err == nil || !strings.Contains(err.Error(), ".keras") || !strings.Contains(err.Error(), ".h5") {
		t.Errorf("Save without an extension: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "model")); serr == nil {
		t.Error("Save without an extension wrote a file")
	}
	p := filepath.Join(dir, "model.hdf5")
	if err := m.Save(p); err != nil {
		t.Fatalf("Save .hdf5: %v", err)
	}
	if _, err := keras.LoadModel(p); err != nil {
		t.Errorf("LoadModel .hdf5: %v", err)
	}
}

func newSmallSequential(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(layers.NewDense(2, layers.WithInputShape(3)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readKerasMember returns one member of a .keras archive.
func readKerasMember(t *testing.T, path, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
