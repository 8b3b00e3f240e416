package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cifarTarGz packs files (name -> content) into a .tar.gz.
func cifarTarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, p := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(p)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(p)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDownloadCIFAR10(t *testing.T) {
	f := newCIFAR10Fake(2, 3)
	src := t.TempDir()
	f.writePy10(t, src, false)
	files := map[string][]byte{
		"cifar-10-batches-py/batches.meta":        []byte("meta"),
		"../evil":                                 []byte("must not be written"),
		"cifar-10-batches-py/../../evil":          []byte("must not be written"),
		"cifar-10-batches-py/sub/data_batch_1":    []byte("must not be written"),
		"other/data_batch_1":                      []byte("must not be written"),
		"./cifar-10-batches-py/.hidden":           []byte("must not be written"),
		"cifar-10-batches-py/readme.html":         []byte("<html>"),
		"cifar-10-batches-py/nothing-to-see-here": nil,
	}
	names, _ := filepath.Glob(filepath.Join(src, "*"))
	for _, n := range names {
		p, _ := os.ReadFile(n)
		files["cifar-10-batches-py/"+filepath.Base(n)] = p
	}
	srv, hits := fakeServer(t, map[string][]byte{"cifar-10-python.tar.gz": cifarTarGz(t, files)})
	root := t.TempDir()
	cache := filepath.Join(root, "cache")
	train, test, err := LoadCIFAR10(downloadOpts(t, srv, cache)...)
	if err != nil {
		t.Fatal(err)
	}
	f.check10(t, train, test)
	got := strings.Join(onlyFiles(t, root), " ")
	want := "cache/cifar-10-batches-py/batches.meta cache/cifar-10-batches-py/data_batch_1 cache/cifar-10-batches-py/data_batch_2 " +
		"cache/cifar-10-batches-py/data_batch_3 cache/cifar-10-batches-py/data_batch_4 cache/cifar-10-batches-py/data_batch_5 " +
		"cache/cifar-10-batches-py/nothing-to-see-here cache/cifar-10-batches-py/readme.html cache/cifar-10-batches-py/test_batch"
	if got != want {
		t.Errorf("files after download:\n%s\nwant\n%s", got, want)
	}
	// The next load finds the extracted copy without the network.
	train, test, err = LoadCIFAR10(append(downloadOpts(t, srv, cache), NoDownload())...)
	if err != nil {
		t.Fatal(err)
	}
	f.check10(t, train, test)
	if hits.Load() != 1 {
		t.Errorf("%d requests, want 1", hits.Load())
	}
}

func TestDownloadCIFARFailures(t *testing.T) {
	f := newCIFAR10Fake(2, 3)
	src := t.TempDir()
	f.writePy10(t, src, false)
	complete := map[string][]byte{}
	names, _ := filepath.Glob(filepath.Join(src, "*"))
	for _, n := range names {
		p, _ := os.ReadFile(n)
		complete["cifar-10-batches-py/"+filepath.Base(n)] = p
	}
	incomplete := map[string][]byte{}
	for k, v := range complete {
		if !strings.HasSuffix(k, "test_batch") {
			incomplete[k] = v
		}
	}
	broken := map[string][]byte{}
	for k, v := range complete {
		broken[k] = v
	}
	broken["cifar-10-batches-py/data_batch_2"] = []byte("garbage")
	good := cifarTarGz(t, complete)
	cases := []struct {
		name    string
		archive []byte // nil: 404
		want    string
	}{
		{"404", nil, "HTTP status 404"},
		{"not gzip", []byte("<html>moved</html>"), "not a gzip archive"},
		{"cut short", good[:len(good)/2], "unexpected EOF"},
		{"incomplete", cifarTarGz(t, incomplete), "incomplete: missing test_batch[.gz]"},
		{"broken batch", cifarTarGz(t, broken), "data_batch_2: not a readable pickle"},
	}
	for _, c := range cases {
		served := map[string][]byte{}
		if c.archive != nil {
			served["cifar-10-python.tar.gz"] = c.archive
		}
		srv, _ := fakeServer(t, served)
		cache := t.TempDir()
		_, _, err := LoadCIFAR10(downloadOpts(t, srv, cache)...)
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.Download == nil || !strings.Contains(nf.Download.Error(), c.want) ||
			!strings.Contains(nf.Download.Error(), srv.URL+"/data/cifar-10-python.tar.gz") {
			t.Errorf("%s: got %v, want a download error containing %q", c.name, err, c.want)
		}
		if left := onlyFiles(t, cache); len(left) != 0 {
			t.Errorf("%s: left %v in the cache", c.name, left)
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 {
			t.Errorf("%s: left %v in the cache", c.name, entries)
		}
	}

	// An incomplete folder already in the cache is not overwritten.
	srv, _ := fakeServer(t, map[string][]byte{"cifar-10-python.tar.gz": good})
	cache := t.TempDir()
	writeFile(t, filepath.Join(cache, "cifar-10-batches-py", "data_batch_1"), []byte("mine"))
	_, _, err := LoadCIFAR10(downloadOpts(t, srv, cache)...)
	if err == nil || !strings.Contains(err.Error(), "exists but holds no complete copy") {
		t.Errorf("got %v", err)
	}
}

// An archive with more files in its folder than the real one (8) is
// refused before it fills the disk.
func TestDownloadCIFARTooManyFiles(t *testing.T) {
	files := map[string][]byte{}
	for i := range maxArchiveFiles + 1 {
		files[fmt.Sprintf("cifar-10-batches-py/file_%03d", i)] = []byte("x")
	}
	srv, _ := fakeServer(t, map[string][]byte{"cifar-10-python.tar.gz": cifarTarGz(t, files)})
	cache := t.TempDir()
	_, _, err := LoadCIFAR10(downloadOpts(t, srv, cache)...)
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Download == nil || !strings.Contains(nf.Download.Error(), "more than 32 files") {
		t.Errorf("got %v, want a download error about the number of files", err)
	}
	if left := onlyFiles(t, cache); len(left) != 0 {
		t.Errorf("left %v in the cache", left)
	}
}
