package datasets

import (
	"path/filepath"
	"testing"
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
