package keras

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// Fuzz targets for every reader of files in this package: LoadWeights
// (.weights.h5, legacy .h5, .weights.npz), LoadModel (.keras, legacy .h5), Checkpoint.Restore and
// RestoreCheckpoint (which BackupAndRestore uses). Invariants on every
// input: no panic, at most fuzzMaxTime, and at most fuzzAllocBase +
// fuzzAllocPerByte bytes allocated per byte of input. For zip archives the
// bytes their compressed members inflate to (at most the sizes their
// headers declare, which the zip reader enforces, and at most the member
// limits of the readers) count as input, since DEFLATE legitimately
// expands up to 1032 times.
//
// Seeds are valid files from this package's writers, built in each target
// and committed under testdata/fuzz/<FuzzName>/.
//
//	go test ./keras/ -run '^$' -fuzz '^FuzzLoadWeights$' -fuzztime 10m
const (
	fuzzAllocBase    = 8 << 20
	fuzzAllocPerByte = 64
	fuzzMaxTime      = 5 * time.Second
)

// inflated is what the compressed members of a zip archive can inflate to,
// by their declared sizes, each at most limit.
func inflated(data []byte, limit int64) int64 {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return 0
	}
	var n int64
	for _, f := range zr.File {
		if f.Method != zip.Store {
			n += min(int64(min(f.UncompressedSize64, 1<<62)), limit)
		}
	}
	return n
}

// bounded runs call on a file of size input bytes (and extra inflated
// bytes) and fails if it took too long or allocated too much.
func bounded(t *testing.T, input, extra int64, call func()) {
	t.Helper()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	start := time.Now()
	call()
	d := time.Since(start)
	runtime.ReadMemStats(&b)
	if d > fuzzMaxTime {
		t.Errorf("took %v on %d bytes", d, input)
	}
	limit := uint64(fuzzAllocBase + fuzzAllocPerByte*(input+extra))
	if alloc := b.TotalAlloc - a.TotalAlloc; alloc > limit {
		t.Errorf("allocated %d bytes on %d bytes of input (+%d inflated); the bound is %d", alloc, input, extra, limit)
	}
}

// fuzzModel is the model every target loads into, compiled with Adam so
// that optimizer variables are read too.
func fuzzModel(t testing.TB) *Model {
	layers.ClearSession()
	layers.SetRandomSeed(1)
	m, err := NewSequential(
		layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewSparseCategoricalCrossentropy()}); err != nil {
		t.Fatal(err)
	}
	return m
}

// seedFile writes a file with write and returns its bytes.
func seedFile(f *testing.F, name string, write func(path string) error) []byte {
	path := filepath.Join(f.TempDir(), name)
	if err := write(path); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// fuzzPath writes data to dir/name, where the target reads it (one file
// rewritten for every input: a directory per input costs more than the
// call).
func fuzzPath(t *testing.T, dir, name string, data []byte) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// h5Signature starts every HDF5 file: inputs that begin with it are
// written as .h5 files, so that the HDF5 readers are fuzzed too.
var h5Signature = []byte("\x89HDF\r\n\x1a\n")

// testdataSeed returns a committed file's bytes.
func testdataSeed(f *testing.F, path string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func FuzzLoadWeights(f *testing.F) {
	m, dir := fuzzModel(f), f.TempDir()
	f.Add(seedFile(f, "a.weights.npz", m.SaveWeights))
	// Keras 3 layout (with the optimizer's variables), Keras 2's
	// weights-only layout, and a .keras archive written by Keras.
	f.Add(seedFile(f, "a.weights.h5", m.SaveWeights))
	f.Add(testdataSeed(f, "interop/two_io_legacy.weights.h5"))
	f.Fuzz(func(t *testing.T, data []byte) {
		name := "f.weights.npz"
		if bytes.HasPrefix(data, h5Signature) {
			name = "f.weights.h5"
		}
		path := fuzzPath(t, dir, name, data)
		bounded(t, int64(len(data)), inflated(data, weightsFileBound(m)), func() { _ = m.LoadWeights(path) })
	})
}

func FuzzLoadModel(f *testing.F) {
	dir := f.TempDir()
	f.Add(seedFile(f, "a.keras", fuzzModel(f).Save))
	// Written by Keras: a .keras archive and a legacy Keras 2 .h5 model.
	f.Add(testdataSeed(f, "interop/two_io.keras"))
	f.Add(testdataSeed(f, "interop/two_io_legacy.h5"))
	f.Add(testdataSeed(f, "interop/nested_legacy_optimizer.h5")) // optimizer_weights (saving_legacy_h5_optimizer.go)
	f.Fuzz(func(t *testing.T, data []byte) {
		name := "f.keras"
		if bytes.HasPrefix(data, h5Signature) {
			name = "f.h5"
		}
		path := fuzzPath(t, dir, name, data)
		bounded(t, int64(len(data)), inflated(data, maxConfigBytes), func() { _, _ = LoadModel(path) })
	})
}

func FuzzCheckpointRestore(f *testing.F) {
	m, dir := fuzzModel(f), f.TempDir()
	f.Add(seedFile(f, "ckpt-1.npz", NewCheckpoint(m, m.Optimizer()).Write))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzPath(t, dir, "ckpt-1.npz", data)
		bounded(t, int64(len(data)), inflated(data, weightsFileBound(m)), func() { _ = NewCheckpoint(m, m.Optimizer()).Restore(path) })
	})
}

func FuzzRestoreCheckpoint(f *testing.F) {
	m, dir := fuzzModel(f), f.TempDir()
	f.Add(seedFile(f, "ckpt.npz", m.SaveCheckpoint))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzPath(t, dir, "ckpt.npz", data)
		bounded(t, int64(len(data)), inflated(data, weightsFileBound(m)), func() { _, _ = m.RestoreCheckpoint(path) })
	})
}
