package datasets

import (
	"archive/zip"
	"bytes"
	"errors"
	"hash/crc32"
	"path/filepath"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/racetest"
)

func TestReadMNISTNPZ(t *testing.T) {
	f := newFakeData(5, 3, 0)
	path := filepath.Join(t.TempDir(), "mnist.npz")
	writeFile(t, path, npzBytes(t, f.npzMembers()))
	train, test, err := readMNISTNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, train, test)
}

func TestReadMNISTNPZKeysWithoutSuffix(t *testing.T) {
	f := newFakeData(2, 1, 9)
	m := map[string][]byte{}
	for k, v := range f.npzMembers() {
		m[k[:len(k)-len(".npy")]] = v
	}
	path := filepath.Join(t.TempDir(), "mnist.npz")
	writeFile(t, path, npzBytes(t, m))
	train, test, err := readMNISTNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, train, test)
}

func TestReadMNISTNPZErrors(t *testing.T) {
	f := newFakeData(2, 1, 0)
	dir := t.TempDir()
	cases := []struct {
		name   string
		modify func(m map[string][]byte)
		want   []string
	}{
		{"missing key", func(m map[string][]byte) { delete(m, "y_test.npy") }, []string{`no array "y_test"`}},
		{"wrong dtype", func(m map[string][]byte) {
			m["x_train.npy"] = npyBytes("<f4", []int{2, 28, 28}, make([]byte, 2*784*4))
		}, []string{"x_train", `dtype "<f4"`, "want uint8"}},
		{"wrong shape", func(m map[string][]byte) {
			m["x_test.npy"] = npyBytes("|u1", []int{1, 784}, make([]byte, 784))
		}, []string{"x_test has shape [1 784]", "want (N, 28, 28)"}},
		{"truncated data", func(m map[string][]byte) {
			m["x_train.npy"] = npyBytes("|u1", []int{2, 28, 28}, make([]byte, 100))
		}, []string{"truncated: want 1568 bytes of x_train data, got 100"}},
		{"extra data", func(m map[string][]byte) {
			m["y_train.npy"] = npyBytes("|u1", []int{2}, []byte{1, 2, 3})
		}, []string{"y_train holds more than the 2 bytes"}},
		{"label count", func(m map[string][]byte) {
			m["y_train.npy"] = npyBytes("|u1", []int{1}, []byte{1})
		}, []string{"2 images but 1 labels"}},
		{"corrupt header", func(m map[string][]byte) {
			// No newline in the header: npyio would slice out of range.
			m["x_train.npy"] = []byte("\x93NUMPY\x01\x00\x04\x00abcd")
		}, []string{"x_train", "corrupt npy header"}},
		{"not npy", func(m map[string][]byte) { m["x_train.npy"] = []byte("hello") }, []string{"x_train"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := f.npzMembers()
			c.modify(m)
			path := filepath.Join(dir, c.name+".npz")
			writeFile(t, path, npzBytes(t, m))
			_, _, err := readMNISTNPZ(path)
			if c.name == "label count" {
				if err == nil || !containsAll(err.Error(), append(c.want, path)...) {
					t.Fatalf("got %v, want an error naming %s with %q", err, path, c.want)
				}
				return
			}
			wantFormatError(t, err, path, c.want...)
		})
	}

	notZip := filepath.Join(dir, "mnist.npz")
	writeFile(t, notZip, []byte("<html>404</html>"))
	_, _, err := readMNISTNPZ(notZip)
	wantFormatError(t, err, notZip, "not a readable npz archive")
}

// npzRaw zips one member stored as is, with the sizes its headers declare
// forged to declared (archive/zip writes a zip64 record for sizes above
// 4 GiB); the other members are written normally.
func npzRaw(t testing.TB, members map[string][]byte, name string, content []byte, declared uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for n, p := range members {
		if n == name {
			continue
		}
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(p)
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, CRC32: crc32.ChecksumIEEE(content),
		CompressedSize64: uint64(len(content)), UncompressedSize64: declared})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(content)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A version-2 npy header announcing a 4 GiB header used to be allocated
// as announced (npyio's reader); now the header is bounded like numpy's
// own (max_header_size).
func TestReadMNISTNPZHugeHeaderLength(t *testing.T) {
	if !inChild(t, time.Minute) {
		return
	}
	m := newFakeData(2, 1, 0).npzMembers()
	m["x_train.npy"] = []byte("\x93NUMPY\x02\x00\xf0\xff\xff\xff{'descr': '|u1', ")
	path := filepath.Join(t.TempDir(), "mnist.npz")
	writeFile(t, path, npzBytes(t, m))
	var err error
	alloc, _ := measure(func() { _, _, err = readMNISTNPZ(path) })
	wantFormatError(t, err, path, "x_train", "header of 4294967280 bytes")
	if alloc > 1<<20 {
		t.Errorf("allocated %s", mib(alloc))
	}
}

// Neither an npy header's shape nor a zip's declared sizes may make the
// reader allocate more than the member can hold.
func TestReadMNISTNPZAllocatesWhatTheFileHolds(t *testing.T) {
	f := newFakeData(2, 1, 0)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		npz  func() []byte
		want []string
	}{
		{"shape", func() []byte {
			m := f.npzMembers()
			m["x_train.npy"] = npyBytes("|u1", []int{60000, 28, 28}, make([]byte, 100))
			m["y_train.npy"] = npyBytes("|u1", []int{60000}, make([]byte, 60000))
			return npzBytes(t, m)
		}, []string{"truncated: want 47040000 bytes of x_train data, got 100"}},
		{"zip64 size", func() []byte {
			x := npyBytes("|u1", []int{2, 28, 28}, f.trainX)
			return npzRaw(t, f.npzMembers(), "x_train.npy", x, 1<<62)
		}, []string{"x_train"}},
		{"zip64 size and shape", func() []byte {
			m := f.npzMembers()
			m["y_train.npy"] = npyBytes("|u1", []int{60000}, make([]byte, 60000))
			x := npyBytes("|u1", []int{60000, 28, 28}, make([]byte, 100))
			return npzRaw(t, m, "x_train.npy", x, 1<<62)
		}, []string{"x_train"}},
	} {
		path := filepath.Join(dir, c.name+".npz")
		p := c.npz()
		writeFile(t, path, p)
		var err error
		alloc, _ := measure(func() { _, _, err = readMNISTNPZ(path) })
		wantFormatError(t, err, path, c.want...)
		if alloc > 1<<20 {
			t.Errorf("%s: allocated %s for a file of %d bytes", c.name, mib(alloc), len(p))
		}
	}
}

// The four arrays' headers are compared before any data is read.
func TestReadMNISTNPZCountsDisagreeBeforeReading(t *testing.T) {
	racetest.Skip(t, "the npz reader's allocation, on one goroutine")
	const n = 200_000
	f := newFakeData(2, 1, 0)
	m := f.npzMembers()
	m["x_train.npy"] = npyBytes("|u1", []int{n, 28, 28}, make([]byte, n*784))
	path := filepath.Join(t.TempDir(), "mnist.npz")
	writeFile(t, path, npzBytes(t, m))
	var err error
	alloc, took := measure(func() { _, _, err = readMNISTNPZ(path) })
	if !errors.Is(err, ErrFormat) || !containsAll(err.Error(), path, "200000 images but 2 labels") {
		t.Errorf("got %v", err)
	}
	if alloc > 1<<20 {
		t.Errorf("took %v and %s to find the counts disagree", took, mib(alloc))
	}
}

func TestReadMNISTNPZLabelsOutOfRange(t *testing.T) {
	f := newFakeData(3, 2, 0)
	f.testY[1] = 200
	path := filepath.Join(t.TempDir(), "mnist.npz")
	writeFile(t, path, npzBytes(t, f.npzMembers()))
	_, _, err := readMNISTNPZ(path)
	wantFormatError(t, err, path, "y_test", "label 1 is 200, want 0..9")
}
