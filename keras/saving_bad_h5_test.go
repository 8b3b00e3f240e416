package keras

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestLoadRefusesHostileH5 loads the files of
// tools/keras_reference/interop_bad_files.py, which Keras 3.15 refuses too
// (testdata/bad_h5/keras_verdicts.json): links and external data would
// read other files than the one given, and a dataset declaring 16 GiB that
// it does not store would allocate what the file never paid for.
func TestLoadRefusesHostileH5(t *testing.T) {
	for _, c := range []struct {
		file string
		want string
	}{
		{"soft_link.keras", "soft link"},
		{"external_link.keras", "external link"},
		{"external_storage.keras", "external storage"},
		{"shape_bomb.keras", "layers/dense/vars/0"},
		{"legacy_soft_link.h5", "soft link"},
	} {
		path := filepath.Join("testdata", "bad_h5", c.file)
		var err error
		alloc := allocDuring(func() { _, err = LoadModel(path) })
		wantHostileError(t, err, alloc, 64<<20, path, c.want)
		if strings.HasSuffix(c.file, ".keras") {
			layers.ClearSession()
			m := MustSequential(layers.NewDense(3, layers.WithInputShape(4)))
			alloc = allocDuring(func() { err = m.LoadWeights(path) })
			wantHostileError(t, err, alloc, 64<<20, path, c.want)
		}
	}
}

// Saving to a name without the format's extension is an error that says
// which extension, as in Keras 3.
func TestSaveNeedsExtension(t *testing.T) {
	m := svMLP(t, 1)
	dir := t.TempDir()
	if err := m.Save(filepath.Join(dir, "model")); err == nil || !strings.Contains(err.Error(), ".keras") {
		t.Errorf("Save without extension: %v", err)
	}
	if err := m.SaveWeights(filepath.Join(dir, "model.h5")); err == nil || !strings.Contains(err.Error(), ".weights.h5") {
		t.Errorf("SaveWeights to .h5: %v", err)
	}
	svNoTempFiles(t, dir)
}
