package distribution_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/distribute/distribution"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// compiled makes smallModel, built and compiled with Adam, under s (nil:
// one device).
func compiled(t *testing.T, s engine.Strategy) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(7)
	exit := func() {}
	if s != nil {
		exit = engine.EnterScope(s)
	}
	m, err := keras.NewSequential(smallModel()...)
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
			Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	if err == nil {
		err = m.Build(5)
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fitEpochs trains m from epoch `from` to `to` in batches of 8, unshuffled,
// and returns the epochs' losses.
func fitEpochs(t *testing.T, m *keras.Model, x, y *tensor.Dense, from, to int) []float64 {
	t.Helper()
	h, err := m.Fit(x, y, keras.FitConfig{Epochs: to, InitialEpoch: from, BatchSize: 8, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	return h.History["loss"]
}

func modelParallel(t *testing.T, data, model int) *distribution.ModelParallel {
	t.Helper()
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, data, model)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	return mp
}

// optimizerState is the model's optimizer's variables (the step count,
// then the slots in creation order: the order files hold them in; the
// names differ between models, which have layers of other names).
func optimizerState(m *keras.Model) [][]float32 {
	var out [][]float32
	for _, v := range m.Optimizer().Variables() {
		out = append(out, v.Numpy())
	}
	return out
}

// TestShardedModelSavesAsUnsharded: a model trained under a 2x2
// ModelParallel (every weight and slot split along "model") writes
// .weights.h5, .keras and checkpoint files that hold bitwise what
// MirroredStrategy's run writes: the weights and Adam's moments gathered
// whole, the step count. Loading them into an unsharded model gives it
// that state, and loading them back into the sharded model (after its
// weights and slots were zeroed) restores every device's blocks.
func TestShardedModelSavesAsUnsharded(t *testing.T) {
	x, y := tokens(24, 11)
	dir := t.TempDir()
	mp := modelParallel(t, 2, 2)
	sharded := compiled(t, mp)
	fitEpochs(t, sharded, x, y, 0, 2)
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
	if err != nil {
		t.Fatal(err)
	}
	ref := compiled(t, mirrored)
	fitEpochs(t, ref, x, y, 0, 2)
	want := optimizerState(ref)
	if len(want) < 1+2*len(ref.TrainableVariables()) {
		t.Fatalf("the reference optimizer has %d variables for %d weights", len(want), len(ref.TrainableVariables()))
	}
	// The sharded model's optimizer reads its slots gathered.
	if got := optimizerState(sharded); !sameState(t, "the sharded model's optimizer", got, want) {
		return
	}
	for _, file := range []string{"m.weights.h5", "m.keras", "m.npz"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(dir, file)
			var err error
			switch file {
			case "m.keras":
				err = sharded.Save(path)
			case "m.npz":
				err = sharded.SaveCheckpoint(path)
			default:
				err = sharded.SaveWeights(path)
			}
			if err != nil {
				t.Fatal(err)
			}
			var plain *keras.Model
			if file == "m.keras" {
				if plain, err = keras.LoadModel(path); err != nil {
					t.Fatal(err)
				}
			} else {
				plain = compiled(t, nil)
				if err := load(plain, path); err != nil {
					t.Fatal(err)
				}
			}
			sameState(t, "an unsharded model loaded from "+file, optimizerState(plain), want)
			sameWeights(t, "an unsharded model loaded from "+file, plain, ref)

			// Back into the sharded model, over zeroed weights and slots.
			zero(t, sharded)
			if err := load(sharded, path); err != nil {
				t.Fatal(err)
			}
			sameState(t, "the sharded model reloaded from "+file, optimizerState(sharded), want)
			sameWeights(t, "the sharded model reloaded from "+file, sharded, ref)
		})
	}
	// The blocks the devices hold are the restored ones: one more epoch
	// is still bitwise MirroredStrategy's.
	fitEpochs(t, sharded, x, y, 2, 3)
	fitEpochs(t, ref, x, y, 2, 3)
	sameState(t, "after one more epoch", optimizerState(sharded), optimizerState(ref))
	sameWeights(t, "after one more epoch", sharded, ref)
}

func load(m *keras.Model, path string) error {
	if filepath.Ext(path) == ".npz" {
		_, err := m.RestoreCheckpoint(path)
		return err
	}
	return m.LoadWeights(path)
}

// zero sets every weight and optimizer variable of m to zero.
func zero(t *testing.T, m *keras.Model) {
	t.Helper()
	for _, v := range append(m.Weights(), m.Optimizer().Variables()...) {
		if err := v.Assign(make([]float32, v.Shape().Size())); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range m.Optimizer().Variables()[1:] {
		for _, x := range v.Numpy() {
			if x != 0 {
				t.Fatalf("%s is not zero after Assign", v.Name())
			}
		}
	}
}

func sameState(t *testing.T, what string, got, want [][]float32) bool {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s has %d variables, want %d", what, len(got), len(want))
		return false
	}
	ok := true
	for k, w := range want {
		if len(got[k]) != len(w) {
			t.Errorf("%s: variable %d has %d values, want %d", what, k, len(got[k]), len(w))
			ok = false
			continue
		}
		for i := range w {
			if got[k][i] != w[i] {
				t.Errorf("%s: variable %d [%d] = %v, want %v", what, k, i, got[k][i], w[i])
				ok = false
				break
			}
		}
	}
	return ok
}

func sameWeights(t *testing.T, what string, got, want *keras.Model) {
	t.Helper()
	a, b := got.Weights(), want.Weights()
	for i := range b {
		ga, wb := a[i].Numpy(), b[i].Numpy()
		for j := range wb {
			if ga[j] != wb[j] {
				t.Errorf("%s: weight %s[%d] = %v, want %v", what, b[i].Name(), j, ga[j], wb[j])
				break
			}
		}
	}
}

// TestResumeOnAnotherMesh: a checkpoint written under one mesh shape
// resumes under another (1x2 -> 2x1 through a checkpoint, 1x2 -> 2x2
// through a .weights.h5 file, 2x2 -> one device through a .keras file)
// with the losses and weights of an uninterrupted run, within 1e-5 after
// three more epochs of Adam steps: the moments came back, not only the
// weights.
func TestResumeOnAnotherMesh(t *testing.T) {
	x, y := tokens(24, 12)
	for _, c := range []struct {
		from, to [2]int // {data, model}; {0, 0}: one device
		file     string
	}{
		{[2]int{1, 2}, [2]int{2, 1}, "c.npz"},
		{[2]int{1, 2}, [2]int{2, 2}, "c.weights.h5"},
		{[2]int{2, 2}, [2]int{0, 0}, "c.keras"},
	} {
		name := fmt.Sprintf("%dx%d-%dx%d-%s", c.from[0], c.from[1], c.to[0], c.to[1], c.file)
		t.Run(name, func(t *testing.T) {
			strategy := func(sh [2]int) engine.Strategy {
				if sh[0] == 0 {
					return nil
				}
				return modelParallel(t, sh[0], sh[1])
			}
			whole := compiled(t, strategy(c.from))
			wantLoss := fitEpochs(t, whole, x, y, 0, 5)

			first := compiled(t, strategy(c.from))
			fitEpochs(t, first, x, y, 0, 2)
			path := filepath.Join(t.TempDir(), c.file)
			var err error
			switch filepath.Ext(c.file) {
			case ".keras":
				err = first.Save(path)
			case ".npz":
				err = first.SaveCheckpoint(path)
			default:
				err = first.SaveWeights(path)
			}
			if err != nil {
				t.Fatal(err)
			}
			var resumed *keras.Model
			if c.file == "c.keras" {
				if resumed, err = keras.LoadModel(path); err != nil {
					t.Fatal(err)
				}
			} else {
				resumed = compiled(t, strategy(c.to))
				if err := load(resumed, path); err != nil {
					t.Fatal(err)
				}
			}
			if it := resumed.Optimizer().Iterations(); it != 6 {
				t.Errorf("the resumed optimizer counts %d steps, want 6", it)
			}
			gotLoss := fitEpochs(t, resumed, x, y, 2, 5)
			worst := 0.0
			for e := 2; e < 5; e++ {
				d := math.Abs(gotLoss[e-2] - wantLoss[e])
				worst = max(worst, d)
				if d > 1e-5 {
					t.Errorf("epoch %d: loss %v resumed, %v uninterrupted", e, gotLoss[e-2], wantLoss[e])
				}
			}
			wd := 0.0
			for i, v := range whole.Weights() {
				a, b := v.Numpy(), resumed.Weights()[i].Numpy()
				for j := range a {
					wd = max(wd, math.Abs(float64(a[j]-b[j])))
				}
			}
			t.Logf("%s: losses within %.2g, weights within %.2g after 9 more Adam steps", name, worst, wd)
			if wd > 1e-5 {
				t.Errorf("weights differ from the uninterrupted run by %g, want within 1e-5", wd)
			}
			if it := resumed.Optimizer().Iterations(); it != 15 {
				t.Errorf("the resumed optimizer counts %d steps, want 15", it)
			}
		})
	}
}
