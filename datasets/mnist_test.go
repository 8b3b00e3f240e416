package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
)

// isolated returns options (plus environment settings) that hide every copy
// of the data on this machine, so a test sees only what it writes.
func isolated(t *testing.T, extra ...LoadOption) []LoadOption {
	t.Helper()
	t.Setenv(EnvDatasets, "")
	t.Setenv("KERAS_HOME", "")
	return append([]LoadOption{CacheDir(t.TempDir()), withFixedDirs(), NoDownload()}, extra...)
}

func TestLoadMNISTFromDir(t *testing.T) {
	for _, gz := range []bool{true, false} {
		f := newFakeData(4, 2, byte(3))
		dir := t.TempDir()
		f.writeIDXDir(t, dir, gz)
		train, test, err := LoadMNIST(isolated(t, Dir(dir))...)
		if err != nil {
			t.Fatalf("gz=%v: %v", gz, err)
		}
		f.check(t, train, test)
	}
}

func TestLoadMNISTFromNPZInDir(t *testing.T) {
	f := newFakeData(3, 2, 1)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mnist.npz"), npzBytes(t, f.npzMembers()))
	train, test, err := LoadMNIST(isolated(t, Dir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, train, test)
}

func TestLoadFashionMNISTFromDir(t *testing.T) {
	f := newFakeData(6, 4, 200)
	dir := t.TempDir()
	f.writeIDXDir(t, dir, true)
	train, test, err := LoadFashionMNIST(isolated(t, Dir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, train, test)
}

func TestLoadMNISTMismatchedCounts(t *testing.T) {
	f := newFakeData(4, 2, 0)
	dir := t.TempDir()
	f.writeIDXDir(t, dir, false)
	writeFile(t, filepath.Join(dir, idxBaseNames[1]), idxBytes(idxLabelsMagic, []int{3}, []byte{1, 2, 3}))
	_, _, err := LoadMNIST(isolated(t, Dir(dir))...)
	if !errors.Is(err, ErrFormat) || !containsAll(err.Error(), "4 images but 3 labels", idxBaseNames[0], idxBaseNames[1]) {
		t.Errorf("got %v, want a count mismatch naming both files", err)
	}
}

func TestLoadMalformedCopyIsAnError(t *testing.T) {
	// A broken copy found first must be reported, not skipped in favour of
	// a later good copy: otherwise the broken file is never noticed.
	bad, good := t.TempDir(), t.TempDir()
	f := newFakeData(2, 2, 0)
	f.writeIDXDir(t, bad, true)
	f.writeIDXDir(t, good, true)
	truncated := filepath.Join(bad, idxBaseNames[2]+".gz")
	writeFile(t, truncated, gzipBytes(t, idxBytes(idxImagesMagic, []int{2, 28, 28}, make([]byte, 1000))))
	opts := isolated(t, CacheDir(filepath.Dir(bad)))
	os.Rename(bad, filepath.Join(filepath.Dir(bad), "mnist"))
	truncated = filepath.Join(filepath.Dir(bad), "mnist", idxBaseNames[2]+".gz")
	t.Setenv(EnvDatasets, filepath.Dir(good))
	os.Rename(good, filepath.Join(filepath.Dir(good), "mnist"))
	_, _, err := LoadMNIST(opts...)
	wantFormatError(t, err, truncated, "truncated: want 1568 bytes of pixels, got 1000")
}

func TestLoadMNISTFolderInsteadOfFile(t *testing.T) {
	// A folder where a file should be does not count as the file.
	f := newFakeData(2, 2, 0)
	dir := t.TempDir()
	f.writeIDXDir(t, dir, false)
	os.Remove(filepath.Join(dir, idxBaseNames[3]))
	os.Mkdir(filepath.Join(dir, idxBaseNames[3]), 0o755)
	_, _, err := LoadMNIST(isolated(t, Dir(dir))...)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), dir+": incomplete: missing "+idxBaseNames[3]) {
		t.Errorf("got %v", err)
	}
}

func TestRealFashionMNIST(t *testing.T) {
	racetest.Skip(t, "the idx reader on the real files, on one goroutine")
	const dir = "/usr/share/datasets/fashion-mnist"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s absent (apt-get install dataset-fashion-mnist): %v", dir, err)
	}
	train, test, err := LoadFashionMNIST(Dir(dir), NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	if !train.X.Shape().Eq([]int{60000, 28, 28}) || !train.Y.Shape().Eq([]int{60000}) ||
		!test.X.Shape().Eq([]int{10000, 28, 28}) || !test.Y.Shape().Eq([]int{10000}) {
		t.Errorf("shapes %v %v %v %v", train.X.Shape(), train.Y.Shape(), test.X.Shape(), test.Y.Shape())
	}
	var counts [10]int
	for _, y := range train.Y.Data().([]uint8) {
		counts[y]++
	}
	if counts != [10]int{6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000} {
		t.Errorf("class counts %v, want 6000 each", counts)
	}
}

func TestRealMNIST(t *testing.T) {
	racetest.Skip(t, "the npz reader on the real file, on one goroutine")
	dir := sharedData(t, "mnist")
	train, test, err := LoadMNIST(Dir(dir), NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	if !train.X.Shape().Eq([]int{60000, 28, 28}) || !test.X.Shape().Eq([]int{10000, 28, 28}) {
		t.Fatalf("shapes %v %v", train.X.Shape(), test.X.Shape())
	}
	mean := func(p []uint8) float64 {
		var s uint64
		for _, v := range p {
			s += uint64(v)
		}
		return float64(s) / float64(len(p))
	}
	if m := mean(train.X.Data().([]uint8)); m < 33.317 || m > 33.319 {
		t.Errorf("train mean pixel %.4f, want 33.318", m)
	}
	if m := mean(test.X.Data().([]uint8)); m < 33.790 || m > 33.792 {
		t.Errorf("test mean pixel %.4f, want 33.791", m)
	}
	if y := train.Y.Data().([]uint8)[:5]; string(y) != "\x05\x00\x04\x01\x09" {
		t.Errorf("first train labels %v, want [5 0 4 1 9]", y)
	}
}

// A copy without images is an error at load time, not in training.
func TestLoadMNISTEmpty(t *testing.T) {
	f := newFakeData(2, 0, 0)
	dir := t.TempDir()
	f.writeIDXDir(t, dir, false)
	_, _, err := LoadMNIST(isolated(t, Dir(dir))...)
	wantFormatError(t, err, filepath.Join(dir, idxBaseNames[2]), "holds no images")
}
