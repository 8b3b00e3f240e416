package callbacks

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestBackupAndRestoreRerunCell is a notebook cell run again after an
// interruption: the model is built again in the same process, so its
// layers get new auto-generated names (dense_2, dense_3), and the backup
// still restores, as in Keras 3, because variables are keyed by their
// place in the model's structure.
func TestBackupAndRestoreRerunCell(t *testing.T) {
	x, y := data(40, 1)
	const epochs = 4
	ref := model(t, 1, nil)
	if _, err := ref.Fit(x, y, quiet(epochs)); err != nil {
		t.Fatal(err)
	}
	cell := func(seed uint64) *keras.Model { // no ClearSession: names go on counting
		layers.SetRandomSeed(seed)
		m, err := keras.NewSequential(
			layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)),
			layers.NewDense(3))
		if err != nil {
			t.Fatal(err)
		}
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
			Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	dir := filepath.Join(t.TempDir(), "backup")
	layers.ClearSession()
	m := cell(1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopper := &LambdaCallback{EpochEnd: func(e int, _ keras.Logs) error {
		if e == 1 {
			cancel()
		}
		return nil
	}}
	cfg := quiet(epochs, NewBackupAndRestore(dir), stopper)
	cfg.Context = ctx
	if _, err := m.Fit(x, y, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Fit: %v", err)
	}
	m2 := cell(99)
	if m2.Layers()[0].Name() == m.Layers()[0].Name() {
		t.Fatalf("the rerun's layers reuse the names %s", m2.Layers()[0].Name())
	}
	h, err := m2.Fit(x, y, quiet(epochs, NewBackupAndRestore(dir)))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Epoch) == 0 || h.Epoch[0] != 2 {
		t.Errorf("the rerun ran epochs %v, want 2 and 3", h.Epoch)
	}
	if !sameWeights(ref, m2) {
		t.Error("the rerun does not end where the uninterrupted run does")
	}
}
