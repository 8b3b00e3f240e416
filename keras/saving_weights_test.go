package keras

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestSaveWeightsIsNumpyNPZ(t *testing.T) {
	m := svMLP(t, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "model.weights.npz")
	if err := m.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	svNoTempFiles(t, dir)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string]*zip.File{}
	for _, f := range zr.File {
		got[f.Name] = f
	}
	// Keyed by structure, as Keras 3 keys its weights files.
	want := map[string]string{"layers/dense/vars/0.npy": "(4, 8)", "layers/dense/vars/1.npy": "(8,)", "layers/dense_1/vars/0.npy": "(8, 3)", "layers/dense_1/vars/1.npy": "(3,)"}
	if len(got) != len(want) {
		t.Errorf("members %v, want %v", got, want)
	}
	keys := []string{"layers/dense/vars/0", "layers/dense/vars/1", "layers/dense_1/vars/0", "layers/dense_1/vars/1"}
	for i, w := range m.Weights() {
		f := got[keys[i]+".npy"]
		if f == nil {
			t.Fatalf("no member for %s", w.Name())
		}
		descr, shape, data := npyMember(t, f)
		if descr != "<f4" || shape != want[f.Name] {
			t.Errorf("%s: descr %s shape %s, want <f4 %s", f.Name, descr, shape, want[f.Name])
		}
		if !reflect.DeepEqual(data, w.Numpy()) {
			t.Errorf("%s: data differs", f.Name)
		}
	}
}

func TestLoadWeightsRoundTrip(t *testing.T) {
	x, _ := svData(10, []int{4}, 3, 1)
	a := svMLP(t, 1)
	path := filepath.Join(t.TempDir(), "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	// Overwriting an existing file works (rename over it).
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	b := svMLP(t, 2)
	if reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Fatal("models with different seeds predict the same")
	}
	if err := b.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	svSameWeights(t, "after LoadWeights", a, b)
	if !reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Error("predictions differ after LoadWeights")
	}
}

func TestLoadWeightsAssignsEveryReplica(t *testing.T) {
	a := svMLP(t, 1)
	path := filepath.Join(t.TempDir(), "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	b := svMLP(t, 2)
	for _, w := range b.Weights() {
		w.Mirror(3)
	}
	if err := b.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	for i, w := range b.Weights() {
		for r := range 3 {
			if !reflect.DeepEqual(w.Data(r), a.Weights()[i].Numpy()) {
				t.Errorf("%s replica %d not loaded", w.Name(), r)
			}
		}
	}
}

func TestLoadWeightsErrors(t *testing.T) {
	dir := t.TempDir()
	a := svMLP(t, 1)
	path := filepath.Join(dir, "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}

	// A weight the file lacks.
	layers.ClearSession()
	bigger := MustSequential(layers.NewDense(8, layers.WithInputShape(4)), layers.NewDense(3), layers.NewDense(2))
	before := bigger.Weights()[0].Numpy()
	err := bigger.LoadWeights(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "layers/dense_2/vars/0") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing weight: %v", err)
	}
	if !reflect.DeepEqual(before, bigger.Weights()[0].Numpy()) {
		t.Error("a failed LoadWeights assigned weights")
	}

	// A shape that differs.
	layers.ClearSession()
	wider := MustSequential(layers.NewDense(9, layers.WithInputShape(4)), layers.NewDense(3))
	err = wider.LoadWeights(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "layers/dense/vars/0") ||
		!strings.Contains(err.Error(), "expected shape (4, 9), the file has (4, 8)") {
		t.Errorf("shape mismatch: %v", err)
	}

	// Not an npz.
	txt := filepath.Join(dir, "notes.weights.npz")
	os.WriteFile(txt, []byte("hello"), 0o644)
	err = a.LoadWeights(txt)
	if err == nil || !strings.Contains(err.Error(), txt) || !errors.Is(err, errNotNPZ) {
		t.Errorf("not an npz: %v", err)
	}

	// Missing file, bad extension, unbuilt model.
	if err := a.LoadWeights(filepath.Join(dir, "nope.weights.npz")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := a.SaveWeights(filepath.Join(dir, "a.h5")); err == nil {
		t.Error("SaveWeights to .h5 succeeded")
	}
	layers.ClearSession()
	unbuilt := MustSequential(layers.NewDense(3))
	if err := unbuilt.SaveWeights(filepath.Join(dir, "u.weights.npz")); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Errorf("unbuilt SaveWeights: %v", err)
	}
	svNoTempFiles(t, dir)
}

func TestCheckpointResumesTraining(t *testing.T) {
	x, y := svData(32, []int{4}, 3, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.npz")

	// Reference: 4 epochs straight.
	ref := svMLP(t, 1)
	svCompile(t, ref, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	svFit(t, ref, x, y, 4, 0)

	// Interrupted run: 2 epochs, checkpoint, then a fresh process.
	a := svMLP(t, 1)
	svCompile(t, a, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	svFit(t, a, x, y, 2, 0)
	if err := a.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	svNoTempFiles(t, dir)

	b := svMLP(t, 7)
	svCompile(t, b, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	epoch, err := b.RestoreCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if epoch != 2 {
		t.Errorf("epoch %d, want 2", epoch)
	}
	if got, want := b.Optimizer().Iterations(), a.Optimizer().Iterations(); got != want {
		t.Errorf("iterations %d, want %d", got, want)
	}
	svSameWeights(t, "restored", a, b)
	svFit(t, b, x, y, 4, epoch)
	svSameWeights(t, "resumed vs straight", ref, b)
}

func TestCheckpointBuildsAndRestoresLearningRate(t *testing.T) {
	x, y := svData(16, []int{8, 8, 1}, 3, 2)
	path := filepath.Join(t.TempDir(), "ckpt.npz")
	a := svCNN(t, 1, false) // built by Fit from the data
	svCompile(t, a, optimizers.NewRMSprop(optimizers.Momentum(0.5), optimizers.Centered(true)))
	svFit(t, a, x, y, 1, 0)
	a.Optimizer().SetLearningRate(0.0123)
	if err := a.SaveCheckpointEpoch(path, 5); err != nil {
		t.Fatal(err)
	}
	b := svCNN(t, 2, false)
	svCompile(t, b, optimizers.NewRMSprop(optimizers.Momentum(0.5), optimizers.Centered(true)))
	epoch, err := b.RestoreCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if epoch != 5 || !b.Built() || b.Optimizer().CurrentLearningRate() != 0.0123 {
		t.Errorf("epoch %d built %v lr %v", epoch, b.Built(), b.Optimizer().CurrentLearningRate())
	}
	for i, v := range b.Optimizer().Variables() {
		if w := a.Optimizer().Variables()[i]; v.Name() != w.Name() || !reflect.DeepEqual(v.Numpy(), w.Numpy()) {
			t.Errorf("optimizer variable %s differs from %s", v.Name(), w.Name())
		}
	}
	if !reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Error("restored model predicts differently")
	}

	// Another optimizer's checkpoint is refused, naming the variable.
	c := svCNN(t, 2, true)
	svCompile(t, c, optimizers.NewSGD())
	if _, err := c.RestoreCheckpoint(path); err == nil || !strings.Contains(err.Error(), "optimizer") {
		t.Errorf("SGD restoring an RMSprop checkpoint: %v", err)
	}
	// A weights file is not a checkpoint.
	wpath := filepath.Join(t.TempDir(), "w.weights.npz")
	a.SaveWeights(wpath)
	if _, err := b.RestoreCheckpoint(wpath); err == nil || !strings.Contains(err.Error(), "not a checkpoint") {
		t.Errorf("weights file as checkpoint: %v", err)
	}
}
