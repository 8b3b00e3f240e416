package keras_test

import (
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestCheckpointResumesDropoutMasks trains N epochs, checkpoints, trains
// M more; a new model restored from the checkpoint and trained M epochs
// ends with bitwise the same weights, because Dropout's seed generator
// state travels in the checkpoint. A restored model whose generator state
// is then moved on ends elsewhere, so the comparison can fail.
func TestCheckpointResumesDropoutMasks(t *testing.T) {
	flat := func() (*keras.Model, error) {
		return keras.NewSequential(
			layers.NewDense(16, layers.WithActivation("relu"), layers.WithInputShape(4)),
			layers.NewDropout(0.5),
			layers.NewDense(3))
	}
	// The Dropout inside a nested model: its state is saved through the
	// nested model's layer.
	nested := func() (*keras.Model, error) {
		inner, err := keras.NewSequential(layers.NewDropout(0.5, layers.WithInputShape(16)), layers.NewDense(3))
		if err != nil {
			return nil, err
		}
		in := layers.Input([]int{4})
		h := layers.Apply(layers.NewDense(16, layers.WithActivation("relu")), in)
		return keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{inner.Apply(h)})
	}
	for _, c := range []struct {
		name    string
		make    func() (*keras.Model, error)
		dropout int // index of the layer holding the generator
	}{{"flat", flat, 1}, {"nested", nested, 2}} {
		t.Run(c.name, func(t *testing.T) { resumeDropout(t, c.make, c.dropout) })
	}
}

func resumeDropout(t *testing.T, makeModel func() (*keras.Model, error), dropout int) {
	build := func() (*keras.Model, optimizers.Optimizer) {
		m, err := makeModel()
		if err != nil {
			t.Fatal(err)
		}
		opt := optimizers.NewSGD(optimizers.LearningRate(0.1))
		if err := m.Compile(keras.CompileConfig{Optimizer: opt, Loss: "sparse_categorical_crossentropy"}); err != nil {
			t.Fatal(err)
		}
		return m, opt
	}
	x, y := synthetic(64, 5)
	fit := func(m *keras.Model, epochs int) {
		t.Helper()
		if _, err := m.Fit(x, y, keras.FitConfig{Epochs: epochs, BatchSize: 16, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(t.TempDir(), "ckpt")

	a, optA := build()
	fit(a, 2)
	path, err := keras.NewCheckpoint(a, optA).Save(prefix)
	if err != nil {
		t.Fatal(err)
	}
	fit(a, 3)

	resume := func(perturb bool) [][]float32 {
		b, optB := build()
		fit(b, 1) // builds weights, slots and the generator, then is overwritten
		if err := keras.NewCheckpoint(b, optB).Restore(path); err != nil {
			t.Fatal(err)
		}
		gens := layers.SeedGenerators(b.Layers()[dropout])
		if len(gens) != 1 {
			t.Fatalf("Dropout has %d seed generators, want 1", len(gens))
		}
		if perturb {
			gens[0].Next()
		}
		fit(b, 3)
		var out [][]float32
		for _, w := range b.Weights() {
			out = append(out, w.Numpy())
		}
		return out
	}
	var want [][]float32
	for _, w := range a.Weights() {
		want = append(want, w.Numpy())
	}
	same := func(got [][]float32) bool {
		for i := range want {
			for j := range want[i] {
				if got[i][j] != want[i][j] {
					return false
				}
			}
		}
		return true
	}
	if !same(resume(false)) {
		t.Error("restored run's weights differ from the uninterrupted run's")
	}
	if same(resume(true)) {
		t.Error("a restored run with another generator state ends with the same weights: masks do not depend on the state")
	}
	// Weights (and .keras files) leave the state out, as Keras does.
	if n, want := len(a.Weights()), 4; n != want {
		t.Errorf("the model has %d weights, want %d (two Dense layers)", n, want)
	}
}

// TestModelCheckpointResumesDropoutMasks: Model.SaveCheckpoint (what
// BackupAndRestore writes) carries the Dropout's seed generator state, so
// RestoreCheckpoint and M more epochs end where the uninterrupted run
// does.
func TestModelCheckpointResumesDropoutMasks(t *testing.T) {
	build := func() *keras.Model {
		m, err := keras.NewSequential(
			layers.NewDense(16, layers.WithActivation("relu"), layers.WithInputShape(4)),
			layers.NewDropout(0.5),
			layers.NewDense(3))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: "sparse_categorical_crossentropy"}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	x, y := synthetic(48, 6)
	fit := func(m *keras.Model, epochs, initial int) {
		t.Helper()
		if _, err := m.Fit(x, y, keras.FitConfig{Epochs: epochs, InitialEpoch: initial, BatchSize: 16, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "ckpt.npz")
	a := build()
	fit(a, 2, 0)
	if err := a.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	fit(a, 4, 2)

	b := build()
	fit(b, 1, 0) // moves b's generator on; the checkpoint sets it back
	epoch, err := b.RestoreCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	fit(b, 4, epoch)
	wa, wb := a.Weights(), b.Weights()
	for i := range wa {
		for j, v := range wa[i].Numpy() {
			if wb[i].Numpy()[j] != v {
				t.Fatalf("%s[%d]: restored run %v, uninterrupted %v", wa[i].Name(), j, wb[i].Numpy()[j], v)
			}
		}
	}
}
