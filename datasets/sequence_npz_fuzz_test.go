package datasets

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"testing"
)

// pickleOfMember returns the pickle after the npy header of an object
// array member of a fixture npz.
func pickleOfMember(tb testing.TB, path, key string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	rc, _, err := openMember(zr, path, key)
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// FuzzSequencePickle: for any bytes the object-array pickle reader
// returns lists or an error, never panics, and allocates in proportion to
// the input; what it returns holds no more ids than the input has bytes.
func FuzzSequencePickle(f *testing.F) {
	for _, p := range []string{"imdb.npz", "imdb_p0.npz", "imdb_p2.npz"} {
		f.Add(pickleOfMember(f, "testdata/text/"+p, "x_test"), 30)
	}
	f.Add([]byte("\x80\x04]\x94(]\x94(K\x01K\x02e]\x94e."), 2)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		bounded(t, len(data), func() {
			seqs, err := readSequencePickle(data, n)
			if err != nil {
				return
			}
			total := 0
			for _, s := range seqs {
				total += len(s)
			}
			if len(seqs) != n || total > len(data) {
				t.Errorf("%d lists of %d ids from %d bytes (header %d)", len(seqs), total, len(data), n)
			}
		})
	})
}

// FuzzReadSequenceNPZ reads any bytes as imdb.npz.
func FuzzReadSequenceNPZ(f *testing.F) {
	for _, p := range []string{"imdb.npz", "imdb_p2.npz"} {
		b, err := os.ReadFile("testdata/text/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzFile(t, dir, "imdb.npz", data)
		bounded(t, len(data)+unzippedSize(data), func() {
			seqs, labels, err := readSequenceNPZ(path, []string{"x_train", "x_test"}, []string{"y_train", "y_test"})
			if err == nil && (len(seqs) != 2 || len(labels) != 2) {
				t.Errorf("%d arrays of texts, %d of labels", len(seqs), len(labels))
			}
		})
	})
}
