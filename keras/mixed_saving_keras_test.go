package keras_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// lsoModelsKeras is testdata/keras/mixed_float16_lso_models.json, written
// with mixed_float16_lso_auto.keras and mixed_float16_lso_explicit.keras
// by tools/keras_reference/loss_scale_model_vectors.py.
type lsoModelsKeras struct {
	X, Y, X1, Y1 []float32
	Cases        []struct {
		Name, File       string
		Optimizer        string
		Inner            string         `json:"inner_optimizer"`
		CompileOptimizer map[string]any `json:"compile_optimizer"`
		Saved            lsoKerasState
		After            lsoKerasState `json:"after_one_more_step"`
	}
}

type lsoKerasState struct {
	Iterations   int64   `json:"iterations"`
	StepCounter  int64   `json:"step_counter"`
	DynamicScale float64 `json:"dynamic_scale"`
	OptVars      []struct {
		Path   string
		Shape  []int
		Values []float64
	} `json:"optimizer_variables"`
	Weights     [][]float64
	Predictions []float64
}

// archiveConfig is the config.json of a .keras file.
func archiveConfig(t *testing.T, path string) map[string]any {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name == "config.json" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			var cfg map[string]any
			if err := json.Unmarshal(b, &cfg); err != nil {
				t.Fatal(err)
			}
			return cfg
		}
	}
	t.Fatalf("%s has no config.json", path)
	return nil
}

// closeTo reports the first value of got that differs from want by more
// than tol relative (absolute below magnitude 1).
func closeTo(got []float32, want []float64, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d values, Keras %d", len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i])-want[i]) / math.Max(1, math.Abs(want[i])); !(d <= tol) {
			return fmt.Errorf("[%d] = %g, Keras %g", i, got[i], want[i])
		}
	}
	return nil
}

// TestLossScaleLoadsKerasModels loads the .keras files Keras saved after
// training under mixed_float16 (an Adam that compile wrapped, and an
// explicit LossScaleOptimizer around SGD with initial_scale 256 and
// dynamic_growth_steps 2): the model is compiled with a
// LossScaleOptimizer holding Keras' step count, step_counter,
// dynamic_scale and slots (every optimizer variable of the file, read
// back through gokeras' own weights file at Keras' paths), the explicit
// one with Keras' arguments; gokeras' .keras file of it records the
// optimizer Keras recorded; one more step on a further batch reaches
// Keras' scale and counter exactly, its weights and predictions within
// float16 rounding.
func TestLossScaleLoadsKerasModels(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/mixed_float16_lso_models.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref lsoModelsKeras
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 2 {
		t.Fatalf("%d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			path := filepath.Join("testdata/keras", c.File)
			m, err := keras.LoadModel(path)
			if err != nil {
				t.Fatal(err)
			}
			lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
			if !ok || c.Optimizer != "LossScaleOptimizer" {
				t.Fatalf("optimizer %T (Keras %s)", m.Optimizer(), c.Optimizer)
			}
			if got := reflect.TypeOf(lso.InnerOptimizer()).Elem().Name(); got != c.Inner {
				t.Errorf("inner optimizer %s, Keras %s", got, c.Inner)
			}
			if it, n, s := lsoState(lso); it != c.Saved.Iterations || n != c.Saved.StepCounter || s != c.Saved.DynamicScale {
				t.Errorf("loaded iterations %d, step_counter %d, dynamic_scale %g; Keras %d, %d, %g", it, n, s, c.Saved.Iterations, c.Saved.StepCounter, c.Saved.DynamicScale)
			}
			if c.Name == "explicit" {
				cfg := lso.GetConfig()
				if cfg["initial_scale"] != 256.0 || cfg["dynamic_growth_steps"] != int64(2) {
					t.Errorf("LossScaleOptimizer config %v, want initial_scale 256, dynamic_growth_steps 2", cfg)
				}
			}
			// Every optimizer variable, at Keras' index in gokeras' file.
			dir := t.TempDir()
			wpath := filepath.Join(dir, "m.weights.h5")
			if err := m.SaveWeights(wpath); err != nil {
				t.Fatal(err)
			}
			root := readH5(t, wpath)
			g, _, err := root.Lookup("optimizer/vars")
			if err != nil || g == nil || len(g.Datasets) != len(c.Saved.OptVars) {
				t.Fatalf("optimizer/vars of gokeras' file: %v (%v), Keras has %d variables", g, err, len(c.Saved.OptVars))
			}
			for i, kv := range c.Saved.OptVars {
				d := g.Dataset(strconv.Itoa(i))
				var got []float32
				switch v := d.Value.(type) {
				case []float32:
					got = v
				case []int64:
					for _, x := range v {
						got = append(got, float32(x))
					}
				}
				if err := closeTo(got, kv.Values, 0); err != nil {
					t.Errorf("optimizer/vars/%d (%s): %v", i, kv.Path, err)
				}
			}
			// The compile config gokeras writes records what Keras' does.
			kpath := filepath.Join(dir, "m.keras")
			if err := m.Save(kpath); err != nil {
				t.Fatal(err)
			}
			gotOpt := archiveConfig(t, kpath)["compile_config"].(map[string]any)["optimizer"].(map[string]any)
			if gotOpt["class_name"] != c.CompileOptimizer["class_name"] {
				t.Errorf("compile_config optimizer %v, Keras %v", gotOpt["class_name"], c.CompileOptimizer["class_name"])
			}
			if c.Name == "explicit" {
				gc, kc := gotOpt["config"].(map[string]any), c.CompileOptimizer["config"].(map[string]any)
				for _, k := range []string{"name", "initial_scale", "dynamic_growth_steps"} {
					if fmt.Sprint(gc[k]) != fmt.Sprint(kc[k]) {
						t.Errorf("compile_config optimizer %s = %v, Keras %v", k, gc[k], kc[k])
					}
				}
				gi, ki := gc["inner_optimizer"].(map[string]any), kc["inner_optimizer"].(map[string]any)
				if gi["class_name"] != ki["class_name"] {
					t.Errorf("inner_optimizer %v, Keras %v", gi["class_name"], ki["class_name"])
				}
			}
			// One more step on Keras' further batch.
			x1 := tensor.New(tensor.WithShape(len(ref.X1)/3, 3), tensor.WithBacking(append([]float32(nil), ref.X1...)))
			y1 := tensor.New(tensor.WithShape(len(ref.Y1)/2, 2), tensor.WithBacking(append([]float32(nil), ref.Y1...)))
			if _, err := m.Fit(x1, y1, keras.FitConfig{BatchSize: 2, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
				t.Fatal(err)
			}
			if it, n, s := lsoState(lso); it != c.After.Iterations || n != c.After.StepCounter || s != c.After.DynamicScale {
				t.Errorf("after one more step: iterations %d, step_counter %d, dynamic_scale %g; Keras %d, %d, %g", it, n, s, c.After.Iterations, c.After.StepCounter, c.After.DynamicScale)
			}
			for i, w := range m.Weights() {
				if err := closeTo(w.Numpy(), c.After.Weights[i], 2e-3); err != nil {
					t.Errorf("after one more step, %s: %v", w.Name(), err)
				}
			}
			pred, err := m.Predict(x1, keras.PredictConfig{Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			if err := closeTo(pred.Data().([]float32), c.After.Predictions, 2e-3); err != nil {
				t.Errorf("predictions after one more step: %v", err)
			}
		})
	}
}

// TestLossScaleExplicitConfig: a LossScaleOptimizer given to Compile is
// recorded in the compile config with Keras 3's keys and comes back from
// it with its arguments (OptimizerFromConfig, LoadModel); a bad one is an
// error naming what is wrong.
func TestLossScaleExplicitConfig(t *testing.T) {
	m, _ := lsoModel(t)
	lso := optimizers.NewLossScaleOptimizer(optimizers.NewSGD(optimizers.LearningRate(0.05)), optimizers.InitialScale(512), optimizers.DynamicGrowthSteps(3))
	if err := m.Compile(keras.CompileConfig{Optimizer: lso, Loss: "categorical_crossentropy"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	opt := archiveConfig(t, path)["compile_config"].(map[string]any)["optimizer"].(map[string]any)
	c := opt["config"].(map[string]any)
	if opt["class_name"] != "LossScaleOptimizer" || c["initial_scale"] != 512.0 || c["dynamic_growth_steps"] != 3.0 || c["inner_optimizer"].(map[string]any)["class_name"] != "SGD" {
		t.Errorf("compile_config optimizer %v", opt)
	}
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	bl, ok := back.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok {
		t.Fatalf("loaded optimizer %T", back.Optimizer())
	}
	if !reflect.DeepEqual(bl.GetConfig(), lso.GetConfig()) {
		t.Errorf("loaded config %v, saved %v", bl.GetConfig(), lso.GetConfig())
	}
	good := func() map[string]any {
		return map[string]any{"class_name": "LossScaleOptimizer", "config": map[string]any{
			"name": "loss_scale_optimizer", "initial_scale": 8.0, "dynamic_growth_steps": 2.0,
			"inner_optimizer": map[string]any{"class_name": "SGD", "config": map[string]any{"learning_rate": 0.1}}}}
	}
	if o, err := keras.OptimizerFromConfig(good()); err != nil {
		t.Errorf("good config: %v", err)
	} else if l, ok := o.(*optimizers.LossScaleOptimizer); !ok || l.DynamicScale() != 8 {
		t.Errorf("good config: %T", o)
	}
	for _, bad := range []struct {
		key  string
		val  any
		want string
	}{
		{"inner_optimizer", nil, "inner_optimizer"},
		{"inner_optimizer", "sgd", "inner_optimizer"},
		{"inner_optimizer", good(), "LossScaleOptimizer"},
		{"inner_optimizer", map[string]any{"class_name": "Nope"}, "Nope"},
		{"initial_scale", -1.0, "initial_scale"},
		{"initial_scale", "big", "initial_scale"},
		{"dynamic_growth_steps", 0.0, "dynamic_growth_steps"},
		{"dynamic_growth_steps", 1.5, "dynamic_growth_steps"},
	} {
		cfg := good()
		cfg["config"].(map[string]any)[bad.key] = bad.val
		if _, err := keras.OptimizerFromConfig(cfg); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s = %v: error %v, want one naming %q", bad.key, bad.val, err, bad.want)
		}
	}
}
