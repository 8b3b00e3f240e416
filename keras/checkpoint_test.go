package keras_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestCheckpointRoundTrip(t *testing.T) {
	dir := t.TempDir()
	build := func() (*keras.Model, optimizers.Optimizer) {
		m, err := keras.NewSequential(layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)), layers.NewDense(3))
		if err != nil {
			t.Fatal(err)
		}
		opt := optimizers.NewAdam(optimizers.LearningRate(0.01))
		if err := m.Compile(keras.CompileConfig{Optimizer: opt, Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
			t.Fatal(err)
		}
		return m, opt
	}
	m, opt := build()
	x, y := synthetic(64, 4)
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	ck := keras.NewCheckpoint(m, opt)
	prefix := filepath.Join(dir, "ckpt")
	for i := 1; i <= 2; i++ {
		p, err := ck.Save(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if want := prefix + "-" + string(rune('0'+i)) + ".npz"; p != want {
			t.Errorf("save %d wrote %s, want %s", i, p, want)
		}
	}
	if got := keras.LatestCheckpoint(prefix); got != prefix+"-2.npz" {
		t.Errorf("LatestCheckpoint = %q", got)
	}
	// No temporary files left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	// A new model (other layer names) and optimizer restore everything.
	m2, opt2 := build()
	if _, err := m2.Fit(x, y, keras.FitConfig{Epochs: 1, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err) // creates the optimizer's slots
	}
	if err := keras.NewCheckpoint(m2, opt2).Restore(keras.LatestCheckpoint(prefix)); err != nil {
		t.Fatal(err)
	}
	for i, v := range m2.Weights() {
		a, b := v.Numpy(), m.Weights()[i].Numpy()
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("%s differs after restore", v.Name())
			}
		}
	}
	if opt2.Iterations() != opt.Iterations() {
		t.Errorf("iterations %d after restore, want %d", opt2.Iterations(), opt.Iterations())
	}
	// Both continue identically.
	h1, _ := m.Fit(x, y, keras.FitConfig{Epochs: 1, NoShuffle: true, Verbose: keras.VerboseSilent})
	h2, _ := m2.Fit(x, y, keras.FitConfig{Epochs: 1, NoShuffle: true, Verbose: keras.VerboseSilent})
	if h1.History["loss"][0] != h2.History["loss"][0] {
		t.Errorf("after restore, loss %v vs %v", h2.History["loss"][0], h1.History["loss"][0])
	}
	// A checkpoint of another architecture is refused with the name.
	other, _ := keras.NewSequential(layers.NewDense(5, layers.WithInputShape(4)))
	if err := keras.NewCheckpoint(other, nil).Restore(prefix + "-1.npz"); err == nil || !strings.Contains(err.Error(), "model/layers/dense/vars/0") {
		t.Errorf("restore into another architecture: %v", err)
	}
}
