package hdf5

import (
	"path/filepath"
	"testing"
)

// TestH5pyFixturesV2: files HDF5 2.0 writes (layout message version 5 under
// libver="latest"), never-written chunked datasets (h5py reads their fill
// value) and a gzip-compressed legacy Keras model, each against what h5py
// read (tools/keras_reference/h5_fixtures_v2.py, manifest_v2.json).
func TestH5pyFixturesV2(t *testing.T) {
	m := loadManifest(t, filepath.Join("testdata", "manifest_v2.json"))
	if m.HDF5 < "2" || len(m.Files) != 4 {
		t.Fatalf("manifest of HDF5 %s lists %d files; want HDF5 2.x and 4", m.HDF5, len(m.Files))
	}
	for name, objs := range m.Files {
		t.Run(name, func(t *testing.T) {
			root, err := ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			checkObjects(t, root, objs)
		})
	}
	// The wide kernel the manifest leaves out: all zeros.
	root, err := ReadFile(filepath.Join("testdata", "legacy_gzip.h5"))
	if err != nil {
		t.Fatal(err)
	}
	_, d, err := root.Lookup("model_weights/wide/sequential/wide/kernel")
	if err != nil {
		t.Fatal(err)
	}
	v, ok := d.Value.([]float32)
	if !ok || len(v) != 16*8192 {
		t.Fatalf("wide kernel %T of %d values", d.Value, len(v))
	}
	for i, x := range v {
		if x != 0 {
			t.Fatalf("wide kernel [%d] = %v, want 0", i, x)
		}
	}
}
