package keras_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// unbuiltModel is the tutorials' create_model(): a Sequential model
// without an input shape, built by its first Fit, Evaluate or Predict.
func unbuiltModel(t *testing.T, units int) (*keras.Model, optimizers.Optimizer) {
	t.Helper()
	m, err := keras.NewSequential(layers.NewDense(units, layers.WithActivation("relu")), layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	opt := optimizers.NewAdam(optimizers.LearningRate(0.01))
	if err := m.Compile(keras.CompileConfig{Optimizer: opt, Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
	return m, opt
}

// A checkpoint restored into a model that is not built yet is applied when
// the model builds, as tf.train.Checkpoint defers it: the new model
// evaluates the trained weights (the tutorial got fresh weights: 18.9%
// instead of 68.4%) and continues training exactly as the saved one.
func TestCheckpointRestoreBeforeBuild(t *testing.T) {
	dir := t.TempDir()
	x, y := synthetic(64, 4)
	m, opt := unbuiltModel(t, 8)
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	path, err := keras.NewCheckpoint(m, opt).Save(filepath.Join(dir, "ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Evaluate(x, y, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}

	m2, opt2 := unbuiltModel(t, 8)
	ck := keras.NewCheckpoint(m2, opt2)
	if err := ck.Restore(keras.LatestCheckpoint(dir)); err != nil {
		t.Fatal(err)
	}
	if !ck.Pending() {
		t.Fatal("restore into an unbuilt model is not pending")
	}
	got, err := m2.Evaluate(x, y, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if ck.Pending() {
		t.Error("still pending after the model was built")
	}
	if got["loss"] != want["loss"] || got["accuracy"] != want["accuracy"] {
		t.Errorf("restored model evaluates %v, the saved one %v", got, want)
	}
	for i, v := range m2.Weights() {
		if !slices.Equal(v.Numpy(), m.Weights()[i].Numpy()) {
			t.Errorf("%s differs from the saved model's", v.Name())
		}
	}
	h1, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := m2.Fit(x, y, keras.FitConfig{Epochs: 1, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if h1.History["loss"][0] != h2.History["loss"][0] {
		t.Errorf("after a deferred restore the next epoch's loss is %v, the saved model's %v", h2.History["loss"][0], h1.History["loss"][0])
	}
	if opt2.Iterations() != opt.Iterations() {
		t.Errorf("iterations %d, want %d (optimizer state not restored)", opt2.Iterations(), opt.Iterations())
	}

	// Another architecture: the error comes from the call that builds the
	// model, naming the file; nothing is silently skipped.
	m3, opt3 := unbuiltModel(t, 5)
	if err := keras.NewCheckpoint(m3, opt3).Restore(path); err != nil {
		t.Fatal(err)
	}
	if _, err := m3.Evaluate(x, y, keras.EvaluateConfig{Verbose: keras.VerboseSilent}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("deferred restore into another architecture: %v", err)
	}

	// A damaged file fails at Restore, not at the first Fit.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	bad := filepath.Join(dir, "bad-1.npz")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m4, opt4 := unbuiltModel(t, 8)
	if err := keras.NewCheckpoint(m4, opt4).Restore(bad); err == nil {
		t.Error("a damaged checkpoint was accepted for a deferred restore")
	}
	// A file without model weights cannot be deferred for a model.
	onlyOpt := filepath.Join(dir, "opt")
	p, err := keras.NewCheckpoint(nil, opt).Save(onlyOpt)
	if err != nil {
		t.Fatal(err)
	}
	m5, _ := unbuiltModel(t, 8)
	if err := keras.NewCheckpoint(m5, nil).Restore(p); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Errorf("restore of a file without model weights into an unbuilt model: %v", err)
	}
}

// LatestCheckpoint takes the directory, as tf.train.latest_checkpoint;
// CheckpointManager keeps max_to_keep files and a new manager of the
// directory finds them.
func TestCheckpointManager(t *testing.T) {
	dir := t.TempDir()
	if got := keras.LatestCheckpoint(dir); got != "" {
		t.Errorf("LatestCheckpoint of an empty directory = %q", got)
	}
	x, y := synthetic(32, 4)
	m, opt := unbuiltModel(t, 4)
	if _, err := m.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	mgr, err := keras.NewCheckpointManager(keras.NewCheckpoint(m, opt), dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	for range 3 {
		p, err := mgr.Save()
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, p)
	}
	if want := filepath.Join(dir, "ckpt-3.npz"); saved[2] != want {
		t.Errorf("third save wrote %s, want %s", saved[2], want)
	}
	if got := mgr.Checkpoints(); !slices.Equal(got, saved[1:]) {
		t.Errorf("kept %v, want %v", got, saved[1:])
	}
	if _, err := os.Stat(saved[0]); err == nil {
		t.Errorf("%s kept beyond max_to_keep 2", saved[0])
	}
	if got := keras.LatestCheckpoint(dir); got != saved[2] {
		t.Errorf("LatestCheckpoint(dir) = %q, want %q", got, saved[2])
	}
	if got := mgr.LatestCheckpoint(); got != saved[2] {
		t.Errorf("manager's latest %q, want %q", got, saved[2])
	}
	again, err := keras.NewCheckpointManager(keras.NewCheckpoint(m, opt), dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Checkpoints(); !slices.Equal(got, saved[1:]) {
		t.Errorf("a new manager finds %v, want %v", got, saved[1:])
	}
	p, err := again.Save()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "ckpt-4.npz"); p != want {
		t.Errorf("a new manager saved %s, want %s (numbering goes on)", p, want)
	}
	// Without a state file, the directory's highest number.
	if err := os.Remove(filepath.Join(dir, "checkpoint")); err != nil {
		t.Fatal(err)
	}
	if got := keras.LatestCheckpoint(dir); got != p {
		t.Errorf("LatestCheckpoint without a state file = %q, want %q", got, p)
	}
	// A prefix still works.
	if got := keras.LatestCheckpoint(filepath.Join(dir, "ckpt")); got != p {
		t.Errorf("LatestCheckpoint(prefix) = %q, want %q", got, p)
	}
}

// max_to_keep=None (0 here) keeps every checkpoint; a custom
// checkpoint_name prefixes the files.
func TestCheckpointManagerKeepAll(t *testing.T) {
	dir := t.TempDir()
	m, opt := unbuiltModel(t, 4)
	x, y := synthetic(16, 4)
	if _, err := m.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	mgr, err := keras.NewCheckpointManager(keras.NewCheckpoint(m, opt), dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	mgr.CheckpointName = "model"
	for range 4 {
		if _, err := mgr.Save(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{filepath.Join(dir, "model-1.npz"), filepath.Join(dir, "model-2.npz"), filepath.Join(dir, "model-3.npz"), filepath.Join(dir, "model-4.npz")}
	if got := mgr.Checkpoints(); !slices.Equal(got, want) {
		t.Errorf("kept %v, want all 4: %v", got, want)
	}
	for _, p := range want {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if got := keras.LatestCheckpoint(dir); got != want[3] {
		t.Errorf("LatestCheckpoint(dir) = %q, want %q", got, want[3])
	}
}

// The tutorial's restore into a new, unbuilt model, for a subclassed
// model: the checkpoint (weights at its fields' paths, the optimizer's
// state, the sampling layer's seed state) waits for the model to build,
// then the new model predicts exactly as the saved one, noise included.
func TestCheckpointRestoreSubclassBeforeBuild(t *testing.T) {
	x := digits(32, 8)
	v := newVAE(t, 8, 6, 2)
	opt := optimizers.NewAdam()
	if err := v.Compile(keras.CompileConfig{Optimizer: opt, Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Fit(x, x, keras.FitConfig{BatchSize: 8, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	path, err := keras.NewCheckpoint(v.Model, opt).Save(filepath.Join(t.TempDir(), "ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	w := newVAE(t, 8, 6, 2)
	opt2 := optimizers.NewAdam()
	if err := w.Compile(keras.CompileConfig{Optimizer: opt2, Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	ck := keras.NewCheckpoint(w.Model, opt2)
	if err := ck.Restore(path); err != nil {
		t.Fatal(err)
	}
	if !ck.Pending() {
		t.Fatal("restore into an unbuilt subclassed model is not pending")
	}
	want, err := v.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if ck.Pending() {
		t.Error("still pending after the model was built")
	}
	if !slices.Equal(got.Data().([]float32), want.Data().([]float32)) {
		t.Error("the restored subclassed model predicts differently from the saved one")
	}
	if opt2.Iterations() != opt.Iterations() {
		t.Errorf("iterations %d, want %d", opt2.Iterations(), opt.Iterations())
	}
}
