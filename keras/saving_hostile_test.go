package keras

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/racetest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"github.com/sbinet/npyio/npz"
)

// Hostile files: small files that claim to hold much more than they do,
// corrupt headers and flipped bits. Each must give an error that names
// the file, after allocating about what the file itself holds.

// npyRaw is an .npy member with a header dict given verbatim.
func npyRaw(dict string, data []byte) []byte {
	h := dict + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(h)))
	return append(append(b, h...), data...)
}

// rawMember is one zip member written with CreateRaw: its sizes are what
// the test says they are, whatever the data.
type rawMember struct {
	name               string
	data               []byte
	method             uint16
	compressed, uncomp uint64 // 0: the real sizes
}

func hostileZip(t *testing.T, members ...rawMember) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		data := m.data
		usize := uint64(len(m.data))
		if m.method == zip.Deflate {
			var c bytes.Buffer
			fw, _ := flate.NewWriter(&c, flate.BestCompression)
			fw.Write(m.data)
			fw.Close()
			data = c.Bytes()
		}
		h := &zip.FileHeader{Name: m.name, Method: m.method, CRC32: crc32.ChecksumIEEE(m.data),
			CompressedSize64: uint64(len(data)), UncompressedSize64: usize}
		if m.compressed != 0 {
			h.CompressedSize64 = m.compressed
		}
		if m.uncomp != 0 {
			h.UncompressedSize64 = m.uncomp
		}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ckptVars is c's variables by checkpoint key.
func ckptVars(t *testing.T, c *Checkpoint) map[string]*ops.Variable {
	t.Helper()
	vars, err := c.variables()
	if err != nil {
		t.Fatal(err)
	}
	return vars
}

// allocDuring returns the bytes allocated while f ran.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// wantHostileError checks that err names path and every word of want, and
// that the call allocated at most limit bytes.
func wantHostileError(t *testing.T, err error, alloc, limit uint64, path string, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error for a hostile file")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file %s", err, path)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if alloc > limit {
		t.Errorf("allocated %d bytes for a hostile file; want at most %d", alloc, limit)
	}
}

// TestLoadWeightsForgedZip64Size: a few hundred bytes whose zip64 sizes
// claim 16 TiB and whose npy header claims 2^42 floats. Before the fix the
// reader allocated what the header claimed and the process died.
func TestLoadWeightsForgedZip64Size(t *testing.T) {
	m := svMLP(t, 1)
	key := m.Weights()[0].Name()
	npy := npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (4398046511104,), }", make([]byte, 16))
	b := hostileZip(t, rawMember{name: key + ".npy", data: npy, method: zip.Store, compressed: 1 << 44, uncomp: 1 << 44})
	if len(b) > 400 {
		t.Fatalf("the hostile file has %d bytes; want a small one", len(b))
	}
	path := writeTemp(t, "forged.weights.npz", b)
	var err error
	alloc := allocDuring(func() { err = m.LoadWeights(path) })
	wantHostileError(t, err, alloc, 1<<20, path, key)
}

// TestRestoreHugeShape: a small npz whose array declares shape (2^42,),
// through both checkpoint readers.
func TestRestoreHugeShape(t *testing.T) {
	npy := npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (4398046511104,), }", make([]byte, 8))
	t.Run("Checkpoint", func(t *testing.T) {
		m := svMLP(t, 1)
		var members []rawMember
		for name := range ckptVars(t, NewCheckpoint(m, nil)) {
			members = append(members, rawMember{name: name, data: npy, method: zip.Store})
		}
		path := writeTemp(t, "huge.npz", hostileZip(t, members...))
		var err error
		alloc := allocDuring(func() { err = NewCheckpoint(m, nil).Restore(path) })
		wantHostileError(t, err, alloc, 1<<20, path, "model/layers/")
	})
	t.Run("RestoreCheckpoint", func(t *testing.T) {
		m := svMLP(t, 1)
		key := m.Weights()[0].Name()
		epoch := npyRaw("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", make([]byte, 8))
		b := hostileZip(t, rawMember{name: ckptEpochKey + ".npy", data: epoch, method: zip.Store},
			rawMember{name: key + ".npy", data: npy, method: zip.Store, compressed: 1 << 44, uncomp: 1 << 44})
		path := writeTemp(t, "huge.npz", b)
		var err error
		alloc := allocDuring(func() { _, err = m.RestoreCheckpoint(path) })
		wantHostileError(t, err, alloc, 1<<20, path, key)
	})
}

// TestRestoreCorruptNPYHeader: broken npy headers are errors naming the
// file and the array, never panics.
func TestRestoreCorruptNPYHeader(t *testing.T) {
	key := "model/layers/" // whichever is read first
	for _, npy := range [][]byte{
		npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (", nil),
		npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), ", nil),
		npyRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (4, -8), }", nil),
		npyRaw("{'descr': '", nil),
		npyRaw("{", nil),
		npyRaw("", nil),
		npyRaw("}", nil),
		[]byte("\x93NUMPY\x01\x00\x04\x00abcd"), // no newline
		[]byte("\x93NUMPY\x01\x00\x40\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,)  "), // no brace
		npyRaw("{'shape': (4, 8), 'fortran_order': False, 'descr': '<f4', }", nil),                  // other key order
		[]byte("\x93NUMPY\x01\x00\xff\xff{'descr'"),
		[]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'"), // a 4 GiB header in a few bytes
		[]byte("\x93NUMPY\x03\x00\xff\xff\xff\x7f{'descr'"),
		[]byte("\x93NUMPY"),
		[]byte("\x93NUMP"),
		{},
	} {
		m := svMLP(t, 1)
		var members []rawMember
		for name := range ckptVars(t, NewCheckpoint(m, nil)) {
			members = append(members, rawMember{name: name, data: npy, method: zip.Store}) // named as Checkpoint.Write names them
		}
		path := writeTemp(t, "corrupt.npz", hostileZip(t, members...))
		var err error
		var alloc uint64
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Restore of header %q panicked: %v", npy, p)
				}
			}()
			alloc = allocDuring(func() { err = NewCheckpoint(m, nil).Restore(path) })
		}()
		wantHostileError(t, err, alloc, 1<<20, path, key)
	}
}

// TestLoadModelConfigBomb: a .keras whose config.json inflates to 256 MiB
// (valid JSON followed by spaces). The reader must stop at its limit.
func TestLoadModelConfigBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 256 MiB")
	}
	racetest.Skip(t, "the archive reader's limit, on one goroutine")
	m := svMLP(t, 1)
	svCompile(t, m, optimizers.NewSGD())
	good := filepath.Join(t.TempDir(), "good.keras")
	if err := m.Save(good); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(good)
	if err != nil {
		t.Fatal(err)
	}
	var members []rawMember
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == kerasConfigFile {
			b = append(b, bytes.Repeat([]byte(" "), 256<<20)...)
		}
		members = append(members, rawMember{name: f.Name, data: b, method: zip.Deflate})
	}
	zr.Close()
	path := writeTemp(t, "bomb.keras", hostileZip(t, members...))
	start := time.Now()
	alloc := allocDuring(func() { _, err = LoadModel(path) })
	wantHostileError(t, err, alloc, uint64(3*maxConfigBytes+(8<<20)), path, kerasConfigFile)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("LoadModel of a config bomb took %v", d)
	}
}

// flipDataBit flips one bit in the data of member key of the npz at path.
func flipDataBit(t *testing.T, path, key string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != key+".npy" && f.Name != key {
			continue
		}
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		if f.Method == zip.Store {
			hlen := int64(binary.LittleEndian.Uint16(b[off+8:]))
			b[off+10+hlen+2] ^= 0x10 // the third byte of the first element
		} else {
			b[off+int64(f.CompressedSize64)/2] ^= 0x10
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no member %s in %s", key, path)
}

// TestRestoreDetectsBitFlip: a checkpoint with one flipped bit in one
// weight fails to restore, with an error naming the file and the weight.
func TestRestoreDetectsBitFlip(t *testing.T) {
	t.Run("Checkpoint", func(t *testing.T) {
		m := svMLP(t, 1)
		path := filepath.Join(t.TempDir(), "ckpt-1.npz")
		if err := NewCheckpoint(m, nil).Write(path); err != nil {
			t.Fatal(err)
		}
		key := "model/layers/dense_1/vars/0"
		flipDataBit(t, path, key)
		wantHostileError(t, NewCheckpoint(svMLP(t, 2), nil).Restore(path), 0, 0, path, key)
	})
	t.Run("RestoreCheckpoint", func(t *testing.T) {
		m := svMLP(t, 1)
		path := filepath.Join(t.TempDir(), "ckpt.npz")
		if err := m.SaveCheckpoint(path); err != nil {
			t.Fatal(err)
		}
		key := "layers/dense_1/vars/0" // the structure key of m.Weights()[2]
		flipDataBit(t, path, key)
		_, err := svMLP(t, 2).RestoreCheckpoint(path)
		wantHostileError(t, err, 0, 0, path, key)
	})
}

// rezip rewrites the npz at path with change applied to member key's
// bytes and valid zip CRCs: corruption the zip layer cannot see.
func rezip(t *testing.T, path, key string, change func([]byte)) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var members []rawMember
	found := false
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSuffix(f.Name, ".npy") == key {
			change(b)
			found = true
		}
		members = append(members, rawMember{name: f.Name, data: b, method: zip.Store})
	}
	zr.Close()
	if !found {
		t.Fatalf("no member %s in %s", key, path)
	}
	if err := os.WriteFile(path, hostileZip(t, members...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreVerifiesChecksums: a changed array in an archive whose zip
// CRCs are valid (a bit flipped before the zip layer, or a rewritten
// archive) fails the checkpoint's own checksums.
func TestRestoreVerifiesChecksums(t *testing.T) {
	flip := func(b []byte) { b[len(b)-1] ^= 1 }
	t.Run("Checkpoint", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ckpt-1.npz")
		if err := NewCheckpoint(svMLP(t, 1), nil).Write(path); err != nil {
			t.Fatal(err)
		}
		key := "model/layers/dense/vars/0"
		rezip(t, path, key, flip)
		m := svMLP(t, 2)
		before := m.Weights()[0].Numpy()
		wantHostileError(t, NewCheckpoint(m, nil).Restore(path), 0, 0, path, key, "CRC-32C")
		if !slices.Equal(before, m.Weights()[0].Numpy()) {
			t.Error("a failed restore assigned weights")
		}
	})
	t.Run("RestoreCheckpoint", func(t *testing.T) {
		m := svMLP(t, 1)
		svCompile(t, m, optimizers.NewAdam())
		path := filepath.Join(t.TempDir(), "ckpt.npz")
		if err := m.SaveCheckpoint(path); err != nil {
			t.Fatal(err)
		}
		key := "layers/dense_1/vars/1" // the structure key of m.Weights()[3]
		rezip(t, path, key, flip)
		_, err := svMLP(t, 2).RestoreCheckpoint(path)
		wantHostileError(t, err, 0, 0, path, key, "CRC-32C")
	})
}

// TestRestoreOldCheckpoints: checkpoints written before checksums (by
// npyio: deflated members without the .npy suffix, flat shapes; and
// SaveCheckpoint's layout without the checksum array) still restore.
func TestRestoreOldCheckpoints(t *testing.T) {
	t.Run("Checkpoint", func(t *testing.T) {
		src := svMLP(t, 1)
		vars := ckptVars(t, NewCheckpoint(src, nil))
		path := filepath.Join(t.TempDir(), "old-1.npz")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := npz.NewWriter(f)
		for _, name := range sortedKeys(vars) {
			if err := w.Write(name, vars[name].Numpy()); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		dst := svMLP(t, 2)
		if err := NewCheckpoint(dst, nil).Restore(path); err != nil {
			t.Fatal(err)
		}
		svSameWeights(t, "old checkpoint", src, dst)
	})
	t.Run("RestoreCheckpoint", func(t *testing.T) {
		src := svMLP(t, 1)
		path := filepath.Join(t.TempDir(), "old.npz")
		if err := src.SaveCheckpoint(path); err != nil {
			t.Fatal(err)
		}
		// Drop the checksum array, as files written before it lack it.
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		var members []rawMember
		for _, f := range zr.File {
			if f.Name == checksumKey+".npy" {
				continue
			}
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			members = append(members, rawMember{name: f.Name, data: b, method: zip.Store})
		}
		zr.Close()
		if len(members) != 6 { // 4 weights, epoch, input shape
			t.Fatalf("%d members without the checksums, want 6", len(members))
		}
		if err := os.WriteFile(path, hostileZip(t, members...), 0o644); err != nil {
			t.Fatal(err)
		}
		dst := svMLP(t, 2)
		if _, err := dst.RestoreCheckpoint(path); err != nil {
			t.Fatal(err)
		}
		svSameWeights(t, "old checkpoint", src, dst)
	})
}

// TestLoadModelHugeLayer: .keras files whose config asks for a Dense
// layer of 2^36 units, or gives it an input of 2^36 features (a 1 TiB
// kernel either way), while the weights file holds a few hundred bytes:
// errors, not attempts to allocate the layer.
func TestLoadModelHugeLayer(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{`"units":8`, `"units":68719476736`, "dense"},
		// The input itself is beyond the tensor budget (config_budget.go).
		{`[null,4]`, `[null,68719476736]`, "batch_shape"},
	} {
		m := svMLP(t, 1)
		good := filepath.Join(t.TempDir(), "good.keras")
		if err := m.Save(good); err != nil {
			t.Fatal(err)
		}
		zr, err := zip.OpenReader(good)
		if err != nil {
			t.Fatal(err)
		}
		var members []rawMember
		for _, f := range zr.File {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			if f.Name == kerasConfigFile {
				if !bytes.Contains(b, []byte(c.old)) {
					t.Fatalf("no %s in %s", c.old, b)
				}
				b = bytes.ReplaceAll(b, []byte(c.old), []byte(c.new))
			}
			members = append(members, rawMember{name: f.Name, data: b, method: zip.Deflate})
		}
		zr.Close()
		path := writeTemp(t, "huge.keras", hostileZip(t, members...))
		alloc := allocDuring(func() { _, err = LoadModel(path) })
		wantHostileError(t, err, alloc, 16<<20, path, c.want)
	}
	// A model loaded unbuilt builds later without the file's bound.
	layers.ClearSession()
	u, err := NewSequential(layers.NewDense(64), layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "unbuilt.keras")
	if err := u.Save(path); err != nil {
		t.Fatal(err)
	}
	v, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := svData(2, []int{100}, 3, 1)
	if _, err := v.Predict(x, PredictConfig{Verbose: VerboseSilent}); err != nil {
		t.Fatalf("the unbuilt loaded model does not build: %v", err)
	}
}
