package main

import (
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/keras"
)

// TestSaveModel: -save-model writes the trained model as a .keras file
// that LoadModel reads back: the CNN's layers, compiled with Adam, with
// the optimizer's step count after training.
func TestSaveModel(t *testing.T) {
	dir := t.TempDir()
	fakeMNIST(t, dir, 64, 16)
	saveModel, plotPath = filepath.Join(dir, "cnn.keras"), ""
	defer func() { saveModel, plotPath = "", "history.png" }()
	if err := run("mnist", dir, 1, 16, 32, 1, keras.VerboseSilent, 1); err != nil {
		t.Fatal(err)
	}
	m, err := keras.LoadModel(saveModel)
	if err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, l := range m.Layers() {
		classes = append(classes, l.ClassName())
	}
	want := []string{"Conv2D", "MaxPooling2D", "Conv2D", "MaxPooling2D", "Flatten", "Dense", "Dense"}
	if len(classes) != len(want) {
		t.Fatalf("layers %v, want %v", classes, want)
	}
	for i := range want {
		if classes[i] != want[i] {
			t.Fatalf("layers %v, want %v", classes, want)
		}
	}
	if opt := m.Optimizer(); opt == nil || opt.Iterations() != 2 {
		t.Errorf("optimizer %v: want Adam after 2 steps (32 examples, batch 16)", opt)
	}
}
