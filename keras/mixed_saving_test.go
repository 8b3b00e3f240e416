package keras_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// lsoKeras is testdata/keras/mixed_float16_lso.json, written with
// mixed_float16_lso.weights.h5 by
// tools/keras_reference/loss_scale_state_vectors.py: Keras' state after
// four fit steps of batch 2 under mixed_float16, the second skipped
// (a value beyond float16's range).
type lsoKeras struct {
	X, Y         []float32
	Iterations   int64   `json:"iterations"`
	StepCounter  int64   `json:"step_counter"`
	DynamicScale float64 `json:"dynamic_scale"`
}

func readLSOKeras(t *testing.T) lsoKeras {
	t.Helper()
	raw, err := os.ReadFile("testdata/keras/mixed_float16_lso.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref lsoKeras
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// lsoModel is the vectors' model under mixed_float16, compiled with
// Adam(0.01) (which Compile wraps in a LossScaleOptimizer).
func lsoModel(t *testing.T) (*keras.Model, *optimizers.LossScaleOptimizer) {
	t.Helper()
	withPolicy(t, "mixed_float16")
	m, err := keras.NewSequential(
		layers.NewDense(4, layers.WithActivation("relu"), layers.WithInputShape(3)),
		layers.NewDense(2),
		layers.NewActivation("softmax", layers.WithDtype("float32")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: "categorical_crossentropy"}); err != nil {
		t.Fatal(err)
	}
	lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok {
		t.Fatalf("optimizer %T under mixed_float16", m.Optimizer())
	}
	return m, lso
}

// lsoState is the optimizer's step count, step_counter and dynamic_scale
// (the last two variables of a LossScaleOptimizer).
func lsoState(lso *optimizers.LossScaleOptimizer) (iterations, counter int64, scale float64) {
	vs := lso.Variables()
	return lso.Iterations(), int64(vs[len(vs)-2].Data(0)[0]), float64(vs[len(vs)-1].Data(0)[0])
}

// readH5 decodes a weights file.
func readH5(t *testing.T, path string) *hdf5.Group {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	g, err := hdf5.Decode(f, st.Size(), hdf5.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// h5Flat lists a file's datasets below prefix by path, with their type,
// shape and values, and its groups' name attributes.
func h5Flat(g *hdf5.Group, path string, out map[string]string) {
	for _, a := range g.Attrs {
		if a.Name == "name" {
			out[path+"@name"] = fmt.Sprint(a.Value)
		}
	}
	for _, d := range g.Datasets {
		out[path+"/"+d.Name] = fmt.Sprintf("%T %v %v", d.Value, d.Shape, d.Value)
	}
	for _, c := range g.Groups {
		h5Flat(c, path+"/"+c.Name, out)
	}
}

// TestLossScaleStateLoadsFromKeras loads the weights file Keras saved
// after training under mixed_float16: the LossScaleOptimizer gets Keras'
// step count, step_counter and dynamic_scale, its Adam the file's slots;
// saved again by gokeras, the optimizer's groups are Keras' dataset for
// dataset (names, types, shapes and values; the layers' too).
func TestLossScaleStateLoadsFromKeras(t *testing.T) {
	ref := readLSOKeras(t)
	m, lso := lsoModel(t)
	if err := m.LoadWeights("testdata/keras/mixed_float16_lso.weights.h5"); err != nil {
		t.Fatal(err)
	}
	if it, c, s := lsoState(lso); it != ref.Iterations || c != ref.StepCounter || s != ref.DynamicScale {
		t.Errorf("loaded iterations %d, step_counter %d, dynamic_scale %g; Keras %d, %d, %g", it, c, s, ref.Iterations, ref.StepCounter, ref.DynamicScale)
	}
	out := filepath.Join(t.TempDir(), "back.weights.h5")
	if err := m.SaveWeights(out); err != nil {
		t.Fatal(err)
	}
	want, got := map[string]string{}, map[string]string{}
	h5Flat(readH5(t, "testdata/keras/mixed_float16_lso.weights.h5"), "", want)
	h5Flat(readH5(t, out), "", got)
	for k, w := range want {
		if strings.HasSuffix(k, "@name") && k != "/optimizer/vars@name" {
			continue // auto-generated names differ (sequential_1, dense_20, adam_3, ...)
		}
		if g, ok := got[k]; !ok {
			t.Errorf("%s: missing from gokeras' file (Keras: %s)", k, w)
		} else if g != w {
			t.Errorf("%s: gokeras %s, Keras %s", k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: in gokeras' file, not in Keras'", k)
		}
	}
}

// TestLossScaleStateRoundTrip trains under mixed_float16 on the vectors'
// batches (the second overflows float16: the step is skipped and the
// scale halved), reaching Keras' optimizer state, then saves the weights
// and a checkpoint and loads each into a fresh compiled model: the
// dynamic scale, the step counter and the step count come back.
func TestLossScaleStateRoundTrip(t *testing.T) {
	ref := readLSOKeras(t)
	m, lso := lsoModel(t)
	x := tensor.New(tensor.WithShape(len(ref.X)/3, 3), tensor.WithBacking(ref.X))
	y := tensor.New(tensor.WithShape(len(ref.Y)/2, 2), tensor.WithBacking(ref.Y))
	if _, err := m.Fit(x, y, keras.FitConfig{BatchSize: 2, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	it, c, s := lsoState(lso)
	if it != ref.Iterations || c != ref.StepCounter || s != ref.DynamicScale {
		t.Fatalf("after fit: iterations %d, step_counter %d, dynamic_scale %g; Keras %d, %d, %g", it, c, s, ref.Iterations, ref.StepCounter, ref.DynamicScale)
	}
	dir := t.TempDir()
	for _, f := range []struct {
		name       string
		save, load func(*keras.Model, string) error
	}{
		{"m.weights.h5", (*keras.Model).SaveWeights, (*keras.Model).LoadWeights},
		{"m.npz", (*keras.Model).SaveCheckpoint, func(m *keras.Model, p string) error { _, err := m.RestoreCheckpoint(p); return err }},
	} {
		path := filepath.Join(dir, f.name)
		if err := f.save(m, path); err != nil {
			t.Fatal(err)
		}
		back, blso := lsoModel(t)
		if err := f.load(back, path); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if bi, bc, bs := lsoState(blso); bi != it || bc != c || bs != s {
			t.Errorf("%s: loaded iterations %d, step_counter %d, dynamic_scale %g; saved %d, %d, %g", f.name, bi, bc, bs, it, c, s)
		}
		for i, v := range lso.Variables() {
			if !reflect.DeepEqual(v.Numpy(), blso.Variables()[i].Numpy()) {
				t.Errorf("%s: optimizer variable %s differs after loading", f.name, v.Name())
			}
		}
	}
}
