package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
)

// cifarFake is a small CIFAR-like dataset with recognisable content: byte
// j of image i's planes (CHW) is byte(7*i + j + seed); labels cycle.
type cifarFake struct {
	train, test [][]byte // CHW planes per batch (5 training batches for CIFAR-10)
	trainY      [][]int  // labels per batch, and for CIFAR-100 the coarse ones below
	testY       []int
	trainCoarse [][]int
	testCoarse  []int
}

func fakePlanes(n int, seed int) []byte {
	p := make([]byte, n*cifarImageBytes)
	for i := range n {
		for j := range cifarImageBytes {
			p[i*cifarImageBytes+j] = byte(7*i + j + seed)
		}
	}
	return p
}

func cycle(n, start, mod int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = (start + i) % mod
	}
	return l
}

// newCIFAR10Fake makes five training batches and a test batch of n images.
func newCIFAR10Fake(n, seed int) cifarFake {
	var f cifarFake
	for b := range 5 {
		f.train = append(f.train, fakePlanes(n, seed+b*31))
		f.trainY = append(f.trainY, cycle(n, b, 10))
	}
	f.test, f.testY = [][]byte{fakePlanes(n, seed+200)}, cycle(n, 7, 10)
	return f
}

// newCIFAR100Fake makes one training file of nTrain images and a test file of nTest.
func newCIFAR100Fake(nTrain, nTest, seed int) cifarFake {
	return cifarFake{
		train: [][]byte{fakePlanes(nTrain, seed)}, test: [][]byte{fakePlanes(nTest, seed+100)},
		trainY: [][]int{cycle(nTrain, 95, 100)}, testY: cycle(nTest, 3, 100),
		trainCoarse: [][]int{cycle(nTrain, 17, 20)}, testCoarse: cycle(nTest, 0, 20),
	}
}

// binRecords encodes planes and labels as records of the binary version.
func binRecords(planes []byte, labels ...[]int) []byte {
	var b bytes.Buffer
	for i := range len(planes) / cifarImageBytes {
		for _, l := range labels {
			b.WriteByte(byte(l[i]))
		}
		b.Write(planes[i*cifarImageBytes : (i+1)*cifarImageBytes])
	}
	return b.Bytes()
}

// writeBin writes the binary version of a CIFAR-10 fake into dir.
func (f cifarFake) writeBin10(t testing.TB, dir string, gz bool) {
	t.Helper()
	for i, p := range f.train {
		writeMaybeGz(t, filepath.Join(dir, fmt.Sprintf("data_batch_%d.bin", i+1)), binRecords(p, f.trainY[i]), gz)
	}
	writeMaybeGz(t, filepath.Join(dir, "test_batch.bin"), binRecords(f.test[0], f.testY), gz)
}

// writePy10 writes the Python version of a CIFAR-10 fake into dir, as
// Python 2's cPickle wrote the official files.
func (f cifarFake) writePy10(t testing.TB, dir string, gz bool) {
	t.Helper()
	for i, p := range f.train {
		writeMaybeGz(t, filepath.Join(dir, fmt.Sprintf("data_batch_%d", i+1)),
			cifarPickleBytes(pickledBatch{data: p, labels: map[string][]int{"labels": f.trainY[i]}}), gz)
	}
	writeMaybeGz(t, filepath.Join(dir, "test_batch"),
		cifarPickleBytes(pickledBatch{data: f.test[0], labels: map[string][]int{"labels": f.testY}}), gz)
}

func (f cifarFake) writeBin100(t testing.TB, dir string, gz bool) {
	t.Helper()
	writeMaybeGz(t, filepath.Join(dir, "train.bin"), binRecords(f.train[0], f.trainCoarse[0], f.trainY[0]), gz)
	writeMaybeGz(t, filepath.Join(dir, "test.bin"), binRecords(f.test[0], f.testCoarse, f.testY), gz)
}

func (f cifarFake) writePy100(t testing.TB, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "train"), cifarPickleBytes(pickledBatch{data: f.train[0],
		labels: map[string][]int{"fine_labels": f.trainY[0], "coarse_labels": f.trainCoarse[0]}}))
	writeFile(t, filepath.Join(dir, "test"), cifarPickleBytes(pickledBatch{data: f.test[0],
		labels: map[string][]int{"fine_labels": f.testY, "coarse_labels": f.testCoarse}}))
}

// writeMaybeGz writes p at path, or gzipped at path + ".gz".
func writeMaybeGz(t testing.TB, path string, p []byte, gz bool) {
	t.Helper()
	if gz {
		writeFile(t, path+".gz", gzipBytes(t, p))
	} else {
		writeFile(t, path, p)
	}
}

// toHWC is the reference conversion, written the way Keras does it:
// reshape to (N, 3, 32, 32) and transpose to (N, 32, 32, 3).
func toHWC(planes []byte) []byte {
	n := len(planes) / cifarImageBytes
	out := make([]byte, len(planes))
	for i := range n {
		for h := range 32 {
			for w := range 32 {
				for c := range 3 {
					out[((i*32+h)*32+w)*3+c] = planes[i*cifarImageBytes+c*1024+h*32+w]
				}
			}
		}
	}
	return out
}

// checkCIFAR compares a loaded pair with the planes and labels it was made from.
func checkCIFAR(t testing.TB, name string, got Pair, planes [][]byte, labels [][]int) {
	t.Helper()
	var wantX, wantY []byte
	for i, p := range planes {
		wantX = append(wantX, toHWC(p)...)
		for _, l := range labels[i] {
			wantY = append(wantY, byte(l))
		}
	}
	n := len(wantY)
	if !got.X.Shape().Eq([]int{n, 32, 32, 3}) || !got.Y.Shape().Eq([]int{n}) {
		t.Fatalf("%s: shapes %v %v, want (%d, 32, 32, 3) (%d)", name, got.X.Shape(), got.Y.Shape(), n, n)
	}
	if got.X.Dtype().Name() != "uint8" || got.Y.Dtype().Name() != "uint8" {
		t.Fatalf("%s: dtypes %v %v, want uint8", name, got.X.Dtype(), got.Y.Dtype())
	}
	if !bytes.Equal(got.X.Data().([]uint8), wantX) {
		t.Errorf("%s: pixels differ from what was written", name)
	}
	if !bytes.Equal(got.Y.Data().([]uint8), wantY) {
		t.Errorf("%s: labels %v, want %v", name, got.Y.Data(), wantY)
	}
}

func (f cifarFake) check10(t testing.TB, train, test Pair) {
	t.Helper()
	checkCIFAR(t, "train", train, f.train, f.trainY)
	checkCIFAR(t, "test", test, f.test, [][]int{f.testY})
}

func TestLoadCIFAR10Binary(t *testing.T) {
	for _, gz := range []bool{false, true} {
		f := newCIFAR10Fake(3, 5)
		root := t.TempDir()
		dir := filepath.Join(root, "cifar-10-batches-bin")
		f.writeBin10(t, dir, gz)
		// Dir may name the folder itself or the folder that holds it.
		for _, d := range []string{dir, root} {
			train, test, err := LoadCIFAR10(isolated(t, Dir(d))...)
			if err != nil {
				t.Fatalf("gz=%v Dir(%s): %v", gz, d, err)
			}
			f.check10(t, train, test)
		}
	}
}

func TestLoadCIFAR10Python(t *testing.T) {
	for _, gz := range []bool{false, true} {
		f := newCIFAR10Fake(4, 9)
		root := t.TempDir()
		f.writePy10(t, filepath.Join(root, "cifar-10-batches-py"), gz)
		train, test, err := LoadCIFAR10(isolated(t, Dir(root))...)
		if err != nil {
			t.Fatalf("gz=%v: %v", gz, err)
		}
		f.check10(t, train, test)
	}
}

func TestLoadCIFAR10Mixed(t *testing.T) {
	// Gzipped and plain files may be mixed, and a file's compression is
	// seen from its content: a gzipped file without .gz loads too.
	f := newCIFAR10Fake(2, 1)
	dir := t.TempDir()
	f.writeBin10(t, dir, false)
	writeFile(t, filepath.Join(dir, "data_batch_2.bin"), gzipBytes(t, binRecords(f.train[1], f.trainY[1])))
	os.Remove(filepath.Join(dir, "data_batch_4.bin"))
	writeMaybeGz(t, filepath.Join(dir, "data_batch_4.bin"), binRecords(f.train[3], f.trainY[3]), true)
	train, test, err := LoadCIFAR10(isolated(t, Dir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	f.check10(t, train, test)
}

// fixtureBatch is the content of the pickles in testdata, written by
// testdata/gen_cifar_pickles.py with Python 3 and numpy.
func fixtureBatch() (planes []byte, labels []int) {
	planes = make([]byte, 2*cifarImageBytes)
	for i := range 2 {
		for j := range cifarImageBytes {
			planes[i*cifarImageBytes+j] = byte((7*i + j) % 256)
		}
	}
	return planes, []int{3, 9}
}

func TestLoadCIFAR10PythonFixtures(t *testing.T) {
	// Pickles written by Python 3's pickle with numpy at protocols 0, 2
	// (bytes as _codecs.encode), 4 and 5 (numpy's _frombuffer), one per
	// batch, and one of them gzipped.
	dir := t.TempDir()
	files := map[string]string{
		"data_batch_1": "cifar10_batch_p0.pkl", "data_batch_2": "cifar10_batch_p2.pkl",
		"data_batch_3": "cifar10_batch_p4.pkl", "data_batch_4": "cifar10_batch_p5.pkl",
		"data_batch_5": "cifar10_batch_p2.pkl", "test_batch": "cifar10_batch_p4.pkl",
	}
	for dst, src := range files {
		p, err := os.ReadFile(filepath.Join("testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		writeMaybeGz(t, filepath.Join(dir, dst), p, dst == "data_batch_5")
	}
	train, test, err := LoadCIFAR10(isolated(t, Dir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	planes, labels := fixtureBatch()
	checkCIFAR(t, "train", train, [][]byte{planes, planes, planes, planes, planes}, [][]int{labels, labels, labels, labels, labels})
	checkCIFAR(t, "test", test, [][]byte{planes}, [][]int{labels})
}

func TestLoadCIFAR100(t *testing.T) {
	f := newCIFAR100Fake(5, 3, 11)
	root := t.TempDir()
	f.writeBin100(t, filepath.Join(root, "bin", "cifar-100-binary"), true)
	f.writePy100(t, filepath.Join(root, "py", "cifar-100-python"))
	for _, layout := range []string{"bin", "py"} {
		for _, mode := range []string{"", "fine", "coarse"} {
			opts := isolated(t, Dir(filepath.Join(root, layout)))
			if mode != "" {
				opts = append(opts, LabelMode(mode))
			}
			train, test, err := LoadCIFAR100(opts...)
			if err != nil {
				t.Fatalf("%s %q: %v", layout, mode, err)
			}
			trainY, testY := f.trainY, f.testY
			if mode == "coarse" {
				trainY, testY = f.trainCoarse, f.testCoarse
			}
			checkCIFAR(t, layout+" train "+mode, train, f.train, trainY)
			checkCIFAR(t, layout+" test "+mode, test, f.test, [][]int{testY})
		}
	}
	_, _, err := LoadCIFAR100(isolated(t, Dir(root), LabelMode("medium"))...)
	if err == nil || !strings.Contains(err.Error(), `LabelMode("medium")`) || errors.Is(err, ErrNotFound) {
		t.Errorf("bad LabelMode: got %v", err)
	}
}

func TestLoadCIFAR100PythonFixture(t *testing.T) {
	dir := t.TempDir()
	p, err := os.ReadFile(filepath.Join("testdata", "cifar100_batch_p4.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "train"), p)
	writeFile(t, filepath.Join(dir, "test"), p)
	planes, _ := fixtureBatch()
	for mode, want := range map[string][]int{"fine": {42, 99}, "coarse": {7, 19}} {
		train, test, err := LoadCIFAR100(isolated(t, Dir(dir), LabelMode(mode))...)
		if err != nil {
			t.Fatal(err)
		}
		checkCIFAR(t, mode+" train", train, [][]byte{planes}, [][]int{want})
		checkCIFAR(t, mode+" test", test, [][]byte{planes}, [][]int{want})
	}
}

// pythonWithNumpy returns a Python 3 that has numpy, or skips the test.
func pythonWithNumpy(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	t.Skip("no python3 with numpy (apt-get install python3-numpy) to write reference pickles")
	return ""
}

func TestLoadCIFAR10NumpyReference(t *testing.T) {
	// Python writes random batches at every pickle protocol, the way
	// Keras' files are read (bytes keys, uint8 (N, 3072) data, int list
	// labels), and the images as Keras returns them, reshaped to
	// (N, 3, 32, 32) and transposed to channels last.
	py := pythonWithNumpy(t)
	dir := t.TempDir()
	script := `
import pickle, sys, numpy as np
rng = np.random.default_rng(1)
out = sys.argv[1]
names = ["data_batch_%d" % i for i in range(1, 6)] + ["test_batch"]
for i, name in enumerate(names):
    x = rng.integers(0, 256, size=(6, 3072), dtype=np.uint8)
    y = [int(v) for v in rng.integers(0, 10, size=6)]
    with open(out + "/" + name, "wb") as f:
        pickle.dump({b"batch_label": b"b", b"labels": y, b"data": x, b"filenames": [b"f"] * 6}, f, protocol=i % 6)
    hwc = x.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    with open(out + "/" + name + ".want", "wb") as f:
        f.write(np.ascontiguousarray(hwc).tobytes() + bytes(y))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	train, test, err := LoadCIFAR10(isolated(t, Dir(dir))...)
	if err != nil {
		t.Fatal(err)
	}
	// Each .want file holds a batch's 6 images (HWC) and then its 6 labels.
	want := func(names ...string) (x, y []byte) {
		for _, n := range names {
			p, err := os.ReadFile(filepath.Join(dir, n+".want"))
			if err != nil || len(p) != 6*cifarImageBytes+6 {
				t.Fatalf("%s.want: %d bytes, %v", n, len(p), err)
			}
			x, y = append(x, p[:6*cifarImageBytes]...), append(y, p[6*cifarImageBytes:]...)
		}
		return x, y
	}
	for _, c := range []struct {
		name  string
		got   Pair
		files []string
	}{
		{"train", train, []string{"data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5"}},
		{"test", test, []string{"test_batch"}},
	} {
		wantX, wantY := want(c.files...)
		if !bytes.Equal(c.got.X.Data().([]uint8), wantX) {
			t.Errorf("%s images differ from numpy's reshape and transpose", c.name)
		}
		if !bytes.Equal(c.got.Y.Data().([]uint8), wantY) {
			t.Errorf("%s labels %v, want %v", c.name, c.got.Y.Data(), wantY)
		}
	}
}

func TestCIFARSearchOrder(t *testing.T) {
	root := t.TempDir()
	env1 := filepath.Join(root, "env1")
	env2 := filepath.Join(root, "env2")
	cache := filepath.Join(root, "cache")
	copies := map[string]cifarFake{}
	places := []struct {
		name, path string
		write      func(f cifarFake, path string)
	}{
		{"keras", filepath.Join(cache, "cifar-10-batches-py"), func(f cifarFake, p string) { f.writePy10(t, p, false) }},
		{"keras 3", filepath.Join(cache, "cifar-10-batches-py-target", "cifar-10-batches-py"), func(f cifarFake, p string) { f.writePy10(t, p, true) }},
		{"env1 bin", filepath.Join(env1, "cifar-10-batches-bin"), func(f cifarFake, p string) { f.writeBin10(t, p, false) }},
		{"env1 py", filepath.Join(env1, "cifar-10-batches-py"), func(f cifarFake, p string) { f.writePy10(t, p, false) }},
		{"env2 bin", filepath.Join(env2, "cifar-10-batches-bin"), func(f cifarFake, p string) { f.writeBin10(t, p, true) }},
	}
	for i, p := range places {
		copies[p.name] = newCIFAR10Fake(1, 10*i)
		p.write(copies[p.name], p.path)
	}
	t.Setenv(EnvDatasets, env1+string(filepath.ListSeparator)+env2+string(filepath.ListSeparator)+env1)
	t.Setenv("KERAS_HOME", "")
	opts := []LoadOption{CacheDir(cache), NoDownload()}
	for _, p := range places {
		train, test, err := LoadCIFAR10(opts...)
		if err != nil {
			t.Fatalf("expecting the %s copy: %v", p.name, err)
		}
		copies[p.name].check10(t, train, test)
		os.RemoveAll(p.path)
	}
	_, _, err := LoadCIFAR10(opts...)
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("with every copy removed got %v, want a NotFoundError", err)
	}
	for _, want := range []string{env1 + ": no cifar-10-batches-bin or cifar-10-batches-py folder",
		env2 + ": no cifar-10-batches-bin or cifar-10-batches-py folder",
		filepath.Join(cache, "cifar-10-batches-py") + ": no such folder"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Count(err.Error(), "\n\t"+env1+":") != 1 {
		t.Errorf("a folder listed twice in $%s is searched more or less than once:\n%v", EnvDatasets, err)
	}
}

func TestCIFARDefaultPlaces(t *testing.T) {
	// Without the variable the loader looks in Keras' cache only: no fixed
	// folder of a build machine, nothing relative to the working directory.
	t.Setenv(EnvDatasets, "")
	t.Setenv("KERAS_HOME", "")
	var got []string
	for _, p := range cifar10Spec.places(newLoadConfig([]LoadOption{CacheDir("/cache")})) {
		got = append(got, p.where)
	}
	want := []string{"/cache/cifar-10-batches-py", "/cache/cifar-10-batches-py-target/cifar-10-batches-py", "$" + EnvDatasets}
	if !slices.Equal(got, want) {
		t.Errorf("places %q, want %q", got, want)
	}
}

func TestCIFARDirIsExclusive(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	newCIFAR10Fake(1, 0).writePy10(t, filepath.Join(cache, "cifar-10-batches-py"), false)
	t.Setenv(EnvDatasets, "")
	missing := filepath.Join(root, "nonexistent")
	_, _, err := LoadCIFAR10(Dir(missing), CacheDir(cache), BaseURL("http://127.0.0.1:1/"))
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Download != nil || len(nf.Searched) != 1 ||
		!containsAll(err.Error(), missing+": no such folder", "data_batch_1.bin ... data_batch_5.bin and test_batch.bin",
			"cifar-10-batches-bin or cifar-10-batches-py inside it") {
		t.Errorf("got %v, want an error naming the folder and the files", err)
	}
}

func TestCIFARNotFound(t *testing.T) {
	root := t.TempDir()
	partial := filepath.Join(root, "cifar-10-batches-bin")
	newCIFAR10Fake(1, 0).writeBin10(t, partial, true)
	os.Remove(filepath.Join(partial, "data_batch_3.bin.gz"))
	os.Remove(filepath.Join(partial, "test_batch.bin.gz"))
	opts := isolated(t)
	t.Setenv(EnvDatasets, root)
	_, _, err := LoadCIFAR10(opts...)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || !errors.Is(err, errDownloadDisabled) {
		t.Fatalf("got %v, want a NotFoundError with downloads disabled", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"cifar-10 not found",
		root + ": cifar-10-batches-bin: incomplete: missing data_batch_3.bin[.gz], test_batch.bin[.gz]",
		"cifar-10-batches-py: no such folder",
		"cifar-10-batches-py (data_batch_1", "cifar-10-batches-bin (data_batch_1.bin", // the hint names both layouts
		"disabled by the NoDownload option",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}

	_, _, err = LoadCIFAR100(isolated(t, Dir(filepath.Join(root, "nowhere")))...)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(root, "nowhere")+": no such folder") ||
		!strings.Contains(err.Error(), "train.bin and test.bin, or Keras' train and test (gzipped or not), in the folder itself or in cifar-100-binary or cifar-100-python inside it") {
		t.Errorf("CIFAR-100: got %v", err)
	}
}

func TestRealCIFAR10(t *testing.T) {
	racetest.Skip(t, "the pickle reader on the real files, on one goroutine")
	sharedCIFAR10 := sharedData(t, "cifar-10-batches-bin")
	train, test, err := LoadCIFAR10(Dir(sharedCIFAR10), NoDownload())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		p        Pair
		n, per   int
		means    [3]float64
		firstFew string
	}{
		{"train", train, 50000, 5000, [3]float64{125.307, 122.950, 113.865}, "\x06\x09\x09\x04\x01"},
		{"test", test, 10000, 1000, [3]float64{126.025, 123.709, 114.854}, "\x03\x08\x08\x00\x06"},
	} {
		if !c.p.X.Shape().Eq([]int{c.n, 32, 32, 3}) || !c.p.Y.Shape().Eq([]int{c.n}) {
			t.Fatalf("%s shapes %v %v", c.name, c.p.X.Shape(), c.p.Y.Shape())
		}
		var counts [10]int
		for _, y := range c.p.Y.Data().([]uint8) {
			counts[y]++
		}
		for k, n := range counts {
			if n != c.per {
				t.Errorf("%s: %d images of class %d (%s), want %d", c.name, n, k, CIFAR10Classes[k], c.per)
			}
		}
		var sums [3]uint64
		for i, v := range c.p.X.Data().([]uint8) {
			sums[i%3] += uint64(v)
		}
		for ch := range 3 {
			m := float64(sums[ch]) / float64(c.n*1024)
			if d := m - c.means[ch]; d > 0.001 || d < -0.001 {
				t.Errorf("%s: channel %d mean %.4f, want %.3f", c.name, ch, m, c.means[ch])
			}
		}
		if y := string(c.p.Y.Data().([]uint8)[:5]); y != c.firstFew {
			t.Errorf("%s: first labels %v, want %v", c.name, []byte(y), []byte(c.firstFew))
		}
	}
}

func BenchmarkLoadCIFAR10(b *testing.B) {
	sharedCIFAR10 := sharedData(b, "cifar-10-batches-bin")
	for b.Loop() {
		if _, _, err := LoadCIFAR10(Dir(sharedCIFAR10), NoDownload()); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(60000 * cifarImageBytes)
}

// BenchmarkLoadCIFAR10Python loads the real CIFAR-10 re-pickled the way
// the official Python batches are (protocol 2, BINSTRING pixel data, lists
// of labels), to time the pickle path on files of the real size.
func BenchmarkLoadCIFAR10Python(b *testing.B) {
	sharedCIFAR10 := sharedData(b, "cifar-10-batches-bin")
	dir := filepath.Join(b.TempDir(), "cifar-10-batches-py")
	names := append(append([]string(nil), cifar10Spec.pyTrain...), cifar10Spec.pyTest)
	bins := append(append([]string(nil), cifar10Spec.binTrain...), cifar10Spec.binTest)
	for i, name := range names {
		batch, err := readCIFARBinary(filepath.Join(sharedCIFAR10, bins[i]+".gz"), &cifar10Spec, cifarLabels{key: "labels", classes: 10})
		if err != nil {
			b.Fatal(err)
		}
		planes := make([]byte, 0, batch.n*cifarImageBytes)
		labels := make([]int, batch.n)
		for j := range batch.n {
			planes = append(planes, batch.raw[j*batch.stride+batch.off:][:cifarImageBytes]...)
			labels[j] = int(batch.labels[j])
		}
		writeFile(b, filepath.Join(dir, name), cifarPickleBytes(pickledBatch{data: planes, labels: map[string][]int{"labels": labels}}))
	}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := LoadCIFAR10(Dir(dir), NoDownload()); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(60000 * cifarImageBytes)
}
