package datasets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wantFormatErr checks that err is a FormatError about path whose problem
// contains want.
func wantFormatErr(t *testing.T, name string, err error, path, want string) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
		t.Errorf("%s: got %v, want a FormatError", name, err)
		return
	}
	if fe.Path != path || !strings.Contains(fe.Problem, want) {
		t.Errorf("%s: got %q about %s, want %q about %s", name, fe.Problem, fe.Path, want, path)
	}
}

// corruptCRC flips a bit of a gzip file's CRC-32 trailer.
func corruptCRC(gz []byte) []byte {
	gz = append([]byte(nil), gz...)
	gz[len(gz)-8] ^= 1
	return gz
}

func TestCIFARMalformed(t *testing.T) {
	f := newCIFAR10Fake(3, 0)
	planes := f.train[0]
	good := binRecords(planes, f.trainY[0])
	batch := func(b pickledBatch) []byte {
		if b.data == nil {
			b.data = planes
		}
		if b.labels == nil {
			b.labels = map[string][]int{"labels": {1, 2, 3}}
		}
		return cifarPickleBytes(b)
	}
	okPickle := batch(pickledBatch{})
	// cut returns the first n bytes of p in a slice of its own, so that
	// nothing past them can be read by mistake.
	cut := func(p []byte, n int) []byte { return append([]byte(nil), p[:n]...) }
	cases := []struct {
		name   string
		py     bool   // the Python layout (else binary)
		file   string // which file is replaced
		gz     bool
		data   []byte
		reason string
	}{
		{"cut mid-record", false, "data_batch_2.bin", false, cut(good, len(good)-100),
			"9119 bytes is not a whole number of 3073-byte records (2 records and 2973 bytes over)"},
		{"cut at a record", false, "data_batch_3.bin", false, cut(good, 2*3073),
			"holds 2 records, but the other CIFAR-10 batches hold 3 each"},
		{"gzip cut short", false, "test_batch.bin", true, cut(gzipBytes(t, good), 40), "truncated: the gzip stream ends"},
		{"gzip with trailing junk", false, "test_batch.bin", true, append(gzipBytes(t, good), "junk"...), "4 bytes that are not gzip after the compressed data"},
		{"gzip bad checksum", false, "test_batch.bin", true, corruptCRC(gzipBytes(t, good)), "gzip: invalid checksum"},
		{"empty", false, "data_batch_1.bin", false, nil, "empty file"},
		{"label 10", false, "data_batch_4.bin", false, binRecords(planes, []int{1, 10, 2}), "record 1 has label 10, want 0..9"},
		{"not a pickle", true, "data_batch_1", false, bytes.Repeat([]byte("garbage!"), 100), "not a readable pickle"},
		{"pickle cut short", true, "data_batch_2", false, cut(okPickle, len(okPickle)/2), "not a readable pickle: pickle byte"},
		{"a binary file as a pickle", true, "data_batch_5", false, good, "not a readable pickle"},
		{"no data", true, "data_batch_3", false, batch(pickledBatch{dropData: true}), `no "data" (keys b"batch_label", b"labels", b"filenames")`},
		{"no labels", true, "test_batch", false, batch(pickledBatch{labels: map[string][]int{"fine_labels": {1, 2, 3}}}), `no "labels"`},
		{"wrong dtype", true, "data_batch_1", false, batch(pickledBatch{descr: "i2", dataBytes: append(planes, planes...)}), `"data": dtype i2 (want a uint8 numpy array of shape (N, 3072))`},
		{"wrong shape", true, "data_batch_1", false, batch(pickledBatch{shape: []int{9, 1024}}), `"data" has shape (9, 1024), want (N, 3072)`},
		{"3-d data", true, "data_batch_1", false, batch(pickledBatch{shape: []int{3, 3, 1024}}), `"data": shape [3 3 1024]`},
		{"size mismatch", true, "data_batch_1", false, batch(pickledBatch{dataBytes: planes[:100]}), "holds 100 bytes, want 9216"},
		{"label count", true, "data_batch_1", false, batch(pickledBatch{labels: map[string][]int{"labels": {1, 2}}}), "3 images but 2 labels"},
		{"label range", true, "data_batch_1", false, batch(pickledBatch{labels: map[string][]int{"labels": {1, 2, 300}}}), "labels[2] is 300, want 0..9"},
		{"foreign pickle", true, "data_batch_4", false, []byte("\x80\x02ctorch._utils\n_rebuild_tensor_v2\n)R."), "unsupported Python object torch._utils._rebuild_tensor_v2"},
		{"a list", true, "data_batch_4", false, []byte("\x80\x02]q\x00."), "the pickle holds a list, want a dict"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if c.py {
			f.writePy10(t, dir, false)
		} else {
			f.writeBin10(t, dir, false)
		}
		path := filepath.Join(dir, c.file)
		os.Remove(path)
		if c.gz {
			path += ".gz"
		}
		writeFile(t, path, c.data)
		_, _, err := LoadCIFAR10(isolated(t, Dir(dir))...)
		wantFormatErr(t, c.name, err, path, c.reason)
	}
}

func TestReadMaybeGzipMembers(t *testing.T) {
	// Several gzip members (as pigz or cat a.gz b.gz make) are one stream,
	// and zero padding after the last is ignored.
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	multi := append(append(gzipBytes(t, []byte("hello, ")), gzipBytes(t, []byte("world"))...), 0, 0, 0, 0)
	writeFile(t, path, multi)
	got, err := readMaybeGzip(path, 100)
	if err != nil || string(got) != "hello, world" {
		t.Errorf("got %q, %v", got, err)
	}
	writeFile(t, path, gzipBytes(t, make([]byte, 101)))
	_, err = readMaybeGzip(path, 100)
	wantFormatErr(t, "limit", err, path, "decompresses to more than 100 bytes")
	writeFile(t, path, make([]byte, 101))
	_, err = readMaybeGzip(path, 100)
	wantFormatErr(t, "limit", err, path, "101 bytes, too large")
}

func TestCIFAR100Malformed(t *testing.T) {
	f := newCIFAR100Fake(2, 2, 0)
	dir := t.TempDir()
	f.writeBin100(t, dir, false)
	// A CIFAR-10 file in CIFAR-100's place: 3073-byte records are not 3074.
	path := filepath.Join(dir, "test.bin")
	writeFile(t, path, binRecords(fakePlanes(2, 0), []int{1, 2}))
	_, _, err := LoadCIFAR100(isolated(t, Dir(dir))...)
	wantFormatErr(t, "CIFAR-10 record", err, path, "6146 bytes is not a whole number of 3074-byte records")
	// A coarse label out of range is caught even when fine labels are read.
	writeFile(t, path, binRecords(fakePlanes(2, 0), []int{1, 20}, []int{5, 6}))
	_, _, err = LoadCIFAR100(isolated(t, Dir(dir))...)
	wantFormatErr(t, "coarse label", err, path, "record 1 has label 20, want 0..19")
}

// A gzipped batch that holds far more than any real CIFAR file (the
// largest, CIFAR-100's training batch, is 155 MB) is refused once that
// much has been decompressed, not read in full.
func TestCIFARFileTooLarge(t *testing.T) {
	if !inChild(t, 2*time.Minute) {
		return
	}
	const records = 100_000 // 307 MB of black airplanes, in 300 KB of gzip
	f := newCIFAR10Fake(2, 0)
	dir := filepath.Join(t.TempDir(), "cifar-10-batches-bin")
	f.writeBin10(t, dir, true)
	big := filepath.Join(dir, "data_batch_3.bin.gz")
	writeFile(t, big, zerosGzip(t, records*(1+cifarImageBytes)))
	var err error
	alloc, took := measure(func() { _, _, err = LoadCIFAR10(isolated(t, Dir(dir))...) })
	wantFormatErr(t, "too large", err, big, "too large for a CIFAR file")
	if limit := uint64(cifarMaxFileBytes + 64<<20); alloc > limit {
		t.Errorf("allocated %s, want at most %s (took %v)", mib(alloc), mib(limit), took)
	}
}
