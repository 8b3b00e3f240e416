package keras

import (
	"archive/zip"
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
)

// The probes of issue 35: tiny .keras files whose configs killed or hung
// the process, or whose errors misled. Each is an error naming the layer
// and the field, after allocating little.

// kerasMembers saves m and returns its archive's members, config.json
// rewritten with each old->new pair of repl.
func kerasMembers(t *testing.T, m *Model, repl ...string) []rawMember {
	t.Helper()
	good := filepath.Join(t.TempDir(), "good.keras")
	if err := m.Save(good); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(good)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var members []rawMember
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == kerasConfigFile {
			for i := 0; i+1 < len(repl); i += 2 {
				if !bytes.Contains(b, []byte(repl[i])) {
					t.Fatalf("no %s in %s", repl[i], b)
				}
				b = bytes.ReplaceAll(b, []byte(repl[i]), []byte(repl[i+1]))
			}
		}
		members = append(members, rawMember{name: f.Name, data: b, method: zip.Deflate})
	}
	return members
}

// rewrittenKeras is kerasMembers written to a file.
func rewrittenKeras(t *testing.T, m *Model, repl ...string) string {
	t.Helper()
	return writeTemp(t, "hostile.keras", hostileZip(t, kerasMembers(t, m, repl...)...))
}

func seqModel(t *testing.T, ls ...layers.Layer) *Model {
	t.Helper()
	layers.ClearSession()
	m, err := NewSequential(ls...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadHostile loads path and checks the error names path and every word
// of want, within a second and 16 MiB.
func loadHostile(t *testing.T, path string, want ...string) {
	t.Helper()
	var err error
	start := time.Now()
	alloc := allocDuring(func() { _, err = LoadModel(path) })
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("LoadModel took %v", d)
	}
	wantHostileError(t, err, alloc, 16<<20, path, want...)
}

// TestLoadModelCategoryEncodingHuge: num_tokens = 2^40 was a fatal out of
// memory (the layer's token constant).
func TestLoadModelCategoryEncodingHuge(t *testing.T) {
	m := seqModel(t, layers.NewCategoryEncoding(layers.CategoryEncodingSettings{NumTokens: 4}, layers.WithInputShape(3)))
	loadHostile(t, rewrittenKeras(t, m, `"num_tokens":4`, `"num_tokens":1099511627776`),
		`"category_encoding"`, "CategoryEncoding", "num_tokens = 1099511627776")
}

// TestLoadModelRepeatVectorHuge: n = 2^40 loaded, then panicked in the
// executor; n = 2^21 of 3 features (6Mi values per sample) is beyond the
// default budget by its output shape, and loads with a larger one.
func TestLoadModelRepeatVectorHuge(t *testing.T) {
	m := seqModel(t, layers.NewRepeatVector(2, layers.WithInputShape(3)))
	loadHostile(t, rewrittenKeras(t, m, `"n":2`, `"n":1099511627776`), `"repeat_vector"`, "RepeatVector", "n = 1099511627776")
	path := rewrittenKeras(t, m, `"n":2`, `"n":2097152`)
	loadHostile(t, path, `"repeat_vector"`, "output shape", "6291456 values per sample")
	back, err := LoadModelWith(path, LoadConfig{MaxTensorValues: 1 << 23})
	if err != nil {
		t.Fatalf("with MaxTensorValues 2^23: %v", err)
	}
	if s := back.Outputs()[0].Shape(); len(s) != 3 || s[1] != 2097152 || s[2] != 3 {
		t.Errorf("output shape %v", s)
	}
}

// TestLoadModelHugeInputShape: an Input of batch_shape [null, 3037000500,
// 3037000500, 1] (its product overflows int64) before a convolution made
// LoadModel run forever in the convolution's shape inference.
func TestLoadModelHugeInputShape(t *testing.T) {
	m := seqModel(t, layers.NewConv2D(2, 3, layers.WithInputShape(8, 8, 1)))
	loadHostile(t, rewrittenKeras(t, m, `[null,8,8,1]`, `[null,3037000500,3037000500,1]`), "InputLayer", "batch_shape")
	// A real but large input needs the budget raised.
	path := rewrittenKeras(t, m, `[null,8,8,1]`, `[null,2048,2048,3]`, `"filters":2`, `"filters":1`)
	if _, err := LoadModel(path); err == nil || !strings.Contains(err.Error(), "MaxTensorValues") {
		t.Errorf("a 2048x2048x3 input under the default budget: %v", err)
	}
}

// TestLoadModelWrappedHugeWeights: an LSTM (its cell builds the weights)
// and a model nested in the model, given inputs of 2^20 features: their
// kernels are beyond what the file holds, errors naming them.
func TestLoadModelWrappedHugeWeights(t *testing.T) {
	m := seqModel(t, layers.NewLSTM(4, layers.WithInputShape(3, 2)))
	loadHostile(t, rewrittenKeras(t, m, `[null,3,2]`, `[null,3,1048576]`), "lstm", "the file holds")
	layers.ClearSession()
	inner, err := NewSequential(layers.NewDense(4, layers.WithInputShape(2)))
	if err != nil {
		t.Fatal(err)
	}
	outer, err := NewSequential(layers.NewIdentity(layers.WithInputShape(2)), inner.AsLayer())
	if err != nil {
		t.Fatal(err)
	}
	loadHostile(t, rewrittenKeras(t, outer, `[null,2]`, `[null,1048576]`), "dense", "the file holds")
}

// TestLoadModelDuplicateMembers: Python's zipfile reads the last of two
// members of a name, Go's the first: one file, two models. Refused.
func TestLoadModelDuplicateMembers(t *testing.T) {
	m := seqModel(t, layers.NewDense(2, layers.WithInputShape(3)))
	members := kerasMembers(t, m)
	other := kerasMembers(t, m, `"units":2`, `"units":5`)
	for _, name := range []string{kerasConfigFile, kerasWeightsFile} {
		var ms []rawMember
		ms = append(ms, members...)
		for _, o := range other {
			if o.name == name {
				ms = append(ms, o)
			}
		}
		loadHostile(t, writeTemp(t, "dup.keras", hostileZip(t, ms...)), "two members named", name)
	}
}

// TestLoadModelWeightsMemberMessages: an archive without its weights, or
// with a weights member that is not HDF5, says so (it said: layer ""
// asks for at least 1 weight values; more values than the 200 the file
// holds).
func TestLoadModelWeightsMemberMessages(t *testing.T) {
	m := seqModel(t, layers.NewDense(2, layers.WithInputShape(3)))
	var without, garbage []rawMember
	for _, mb := range kerasMembers(t, m) {
		if mb.name == kerasWeightsFile {
			garbage = append(garbage, rawMember{name: mb.name, data: bytes.Repeat([]byte("not hdf5 "), 100), method: zip.Store})
			continue
		}
		without = append(without, mb)
		garbage = append(garbage, mb)
	}
	loadHostile(t, writeTemp(t, "noweights.keras", hostileZip(t, without...)), "has no model.weights.h5")
	loadHostile(t, writeTemp(t, "garbage.keras", hostileZip(t, garbage...)), "model.weights.h5 is not an HDF5 file", `"not hdf5"`)
}

// TestLoadLegacyGzipH5: a legacy Keras 2 model file whose datasets are
// gzip-compressed holds about 7 times its size over 4 in values (a wide
// zero kernel); it was refused as asking for more than the file holds.
// Written by Keras 3 and rewritten by h5py under HDF5 2.0
// (tools/keras_reference/h5_fixtures_v2.py).
func TestLoadLegacyGzipH5(t *testing.T) {
	path := filepath.Join("..", "internal", "hdf5", "testdata", "legacy_gzip.h5")
	m, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := hdf5.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, d, err := root.Lookup("model_weights/out/sequential/out/kernel")
	if err != nil {
		t.Fatal(err)
	}
	ws := m.Weights()
	if len(ws) != 4 || ws[0].Shape().Size() != 16*8192 {
		t.Fatalf("weights %v", ws)
	}
	want := d.Value.([]float32)
	got := ws[2].Numpy()
	if len(got) != len(want) {
		t.Fatalf("out kernel of %d values, the file's %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("out kernel [%d] = %v, the file's %v", i, got[i], want[i])
		}
	}
	for i, x := range ws[0].Numpy() {
		if x != 0 {
			t.Fatalf("wide kernel [%d] = %v, want 0", i, x)
		}
	}
}

// TestGoBuiltHugeModelIsAnError: models built in Go whose weights no
// machine holds (layers.NewDense(1<<40), WithInputShape(1<<40)) are an
// error from NewSequential naming the layer, as Keras raises a catchable
// error, not Go's fatal out of memory.
func TestGoBuiltHugeModelIsAnError(t *testing.T) {
	layers.ClearSession()
	for _, ls := range [][]layers.Layer{
		{layers.NewDense(1<<40, layers.WithInputShape(4))},
		{layers.NewDense(8, layers.WithInputShape(1<<40))},
	} {
		_, err := NewSequential(ls...)
		if err == nil || !strings.Contains(err.Error(), ls[0].Name()) || !strings.Contains(err.Error(), "weight of shape") {
			t.Errorf("error %v; want one naming %q and its weight", err, ls[0].Name())
		}
	}
}
