package callbacks

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// brModel is helpers_test.go's model for testing.TB (fuzz setup has no *testing.T).
func brModel(tb testing.TB, seed uint64) *keras.Model {
	tb.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(seed)
	m, err := keras.NewSequential(
		layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDense(3))
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
		Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		tb.Fatal(err)
	}
	return m
}

// backupOnce trains one epoch with a BackupAndRestore that keeps its
// backup and returns the backup's path.
func backupOnce(t testing.TB, dir string) string {
	x, y := data(16, 1)
	m := brModel(t, 1)
	b := NewBackupAndRestore(dir, DeleteCheckpoint(false))
	if _, err := m.Fit(x, y, quiet(1, b)); err != nil {
		t.Fatal(err)
	}
	return b.Path()
}

// TestBackupAndRestoreRefusesCorruptBackup: a backup with one changed
// bit in a weight, rewritten with valid zip CRCs (corruption the zip layer
// cannot see), makes Fit fail with an error naming the backup file and the
// weight, instead of resuming from wrong values.
func TestBackupAndRestoreRefusesCorruptBackup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "backup")
	path := backupOnce(t, dir)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	var key string
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The first kernel: variables are keyed by structure (layers/dense/vars/0).
		if key == "" && strings.HasSuffix(f.Name, "/vars/0.npy") && strings.HasPrefix(f.Name, "layers/") {
			b[len(b)-3] ^= 0x04
			key = strings.TrimSuffix(f.Name, ".npy")
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
		w.Write(b)
	}
	zr.Close()
	zw.Close()
	if key == "" {
		t.Fatal("no kernel in the backup")
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	x, y := data(16, 1)
	_, err = model(t, 2, nil).Fit(x, y, quiet(2, NewBackupAndRestore(dir)))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), key) {
		t.Fatalf("Fit from a corrupt backup: err = %v, want an error naming %s and %s", err, path, key)
	}
}

// FuzzBackupAndRestore feeds arbitrary bytes as the backup that
// OnTrainBegin restores. Invariants: no panic, at most 5 s, and at most
// 8 MiB plus 64 bytes per input byte allocated (the bound of package
// keras' fuzz targets; the model's weights bound what compressed members
// may inflate to).
//
//	go test ./keras/callbacks/ -run '^$' -fuzz '^FuzzBackupAndRestore$' -fuzztime 10m
func FuzzBackupAndRestore(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "backup")
	seed, err := os.ReadFile(backupOnce(f, dir))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	m := brModel(f, 1)
	b := NewBackupAndRestore(dir)
	b.SetModel(m)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(b.Path(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_ = b.OnTrainBegin(keras.Logs{})
		d := time.Since(start)
		runtime.ReadMemStats(&after)
		if d > 5*time.Second {
			t.Errorf("took %v on %d bytes", d, len(data))
		}
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(8<<20+64*len(data)+64*4096); alloc > limit {
			t.Errorf("allocated %d bytes on %d bytes of input; the bound is %d", alloc, len(data), limit)
		}
	})
}
