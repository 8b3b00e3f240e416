package datasets

// CIFAR batch files: the official binary records and the Python pickles
// (gzipped or not), each read whole under a size limit and checked.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// planesToPixels turns one image stored as three 32x32 planes (CHW, as in
// the CIFAR files) into 1024 RGB pixels (HWC, as Keras returns them).
func planesToPixels(dst, src []byte) {
	dst = dst[:cifarImageBytes]
	r, g, b := src[:1024], src[1024:2048], src[2048:3072]
	for p := range 1024 {
		d := dst[3*p : 3*p+3 : 3*p+3]
		d[0], d[1], d[2] = r[p], g[p], b[p]
	}
}

// readCIFARBinary reads a file of the binary version: records of the
// label bytes followed by 3072 pixel bytes.
func readCIFARBinary(path string, spec *cifarSpec, labels cifarLabels) (cifarBatch, error) {
	data, err := readMaybeGzip(path, cifarMaxFileBytes)
	if err != nil {
		return cifarBatch{}, err
	}
	nl := len(spec.labelClasses)
	rec := nl + cifarImageBytes
	if len(data) == 0 {
		return cifarBatch{}, formatErrorf(path, "empty file")
	}
	if len(data)%rec != 0 {
		return cifarBatch{}, formatErrorf(path, "%d bytes is not a whole number of %d-byte records (%d records and %d bytes over): cut short, or not a %s binary batch",
			len(data), rec, len(data)/rec, len(data)%rec, spec.title)
	}
	n := len(data) / rec
	out := make([]byte, n)
	for i := range n {
		r := data[i*rec : i*rec+nl]
		for j, classes := range spec.labelClasses {
			if int(r[j]) >= classes {
				return cifarBatch{}, formatErrorf(path, "record %d has label %d, want 0..%d: not a %s binary batch",
					i, r[j], classes-1, spec.title)
			}
		}
		out[i] = r[labels.index]
	}
	return cifarBatch{path: path, n: n, raw: data, stride: rec, off: nl, labels: out}, nil
}

// readCIFARPickle reads a file of the Python version: a pickled dict with
// "data", a (N, 3072) uint8 numpy array, and a list of N labels.
func readCIFARPickle(path string, labels cifarLabels) (cifarBatch, error) {
	data, err := readMaybeGzip(path, cifarMaxFileBytes)
	if err != nil {
		return cifarBatch{}, err
	}
	v, err := unpickle(data)
	if err != nil {
		return cifarBatch{}, formatErrorf(path, "not a readable pickle: %v", err)
	}
	d, ok := v.(*pyDict)
	if !ok {
		return cifarBatch{}, formatErrorf(path, "the pickle holds a %s, want a dict with \"data\" and %q (a CIFAR batch)", pyTypeName(v), labels.key)
	}
	dv, ok := d.get("data")
	if !ok {
		return cifarBatch{}, formatErrorf(path, "the pickled dict has no \"data\" (keys %s): not a CIFAR batch", d.keyNames())
	}
	rows, cols, px, err := uint8Matrix(dv)
	if err != nil {
		return cifarBatch{}, formatErrorf(path, "\"data\": %v (want a uint8 numpy array of shape (N, 3072))", err)
	}
	if cols != cifarImageBytes {
		return cifarBatch{}, formatErrorf(path, "\"data\" has shape (%d, %d), want (N, 3072)", rows, cols)
	}
	if rows == 0 {
		return cifarBatch{}, formatErrorf(path, "\"data\" holds no images")
	}
	lv, ok := d.get(labels.key)
	if !ok {
		return cifarBatch{}, formatErrorf(path, "the pickled dict has no %q (keys %s)", labels.key, d.keyNames())
	}
	ints, err := intList(lv)
	if err != nil {
		return cifarBatch{}, formatErrorf(path, "%q: %v", labels.key, err)
	}
	if len(ints) != rows {
		return cifarBatch{}, formatErrorf(path, "%d images but %d %s", rows, len(ints), labels.key)
	}
	out := make([]byte, rows)
	for i, l := range ints {
		if l < 0 || l >= int64(labels.classes) {
			return cifarBatch{}, formatErrorf(path, "%s[%d] is %d, want 0..%d", labels.key, i, l, labels.classes-1)
		}
		out[i] = byte(l)
	}
	return cifarBatch{path: path, n: rows, raw: px, stride: cifarImageBytes, labels: out}, nil
}

// readMaybeGzip reads a whole file, decompressing it if its content is
// gzipped (whatever its name), and fails for more than limit bytes.
func readMaybeGzip(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if head, _ := br.Peek(2); len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		if st.Size() > limit {
			return nil, formatErrorf(path, "%d bytes, too large for a CIFAR file", st.Size())
		}
		data := make([]byte, st.Size())
		if n, err := io.ReadFull(br, data); err != nil {
			return nil, readFailure(path, err, "content", len(data), n)
		}
		return data, nil
	}

	// A gzipped file is smaller than what it holds, give or take headers.
	if st.Size() > limit+1<<20 {
		return nil, formatErrorf(path, "%d bytes, too large for a CIFAR file", st.Size())
	}
	// gzip ends with the uncompressed size modulo 4 GiB: a hint for the
	// buffer. The trailer is only a claim, so it is trusted up to a small
	// multiple of the file (CIFAR's pixels barely compress: a real file's
	// content is about its own size); beyond that the buffer grows as
	// content arrives. Capping by deflate's 1032:1 alone let a 4 KB file
	// with a forged trailer allocate 4 MB up front.
	hint := int64(0)
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], st.Size()-4); err == nil {
		hint = min(int64(binary.LittleEndian.Uint32(tail[:])), limit, 8*st.Size()+64<<10)
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, formatErrorf(path, "bad gzip header: %v", err)
	}
	defer zr.Close()
	// The content goes into buf, sized by the hint (exact for a file
	// written by gzip), and beyond that into chunks joined at the end:
	// growing one buffer by append would copy it at every step, about
	// five times the final size in all.
	buf := make([]byte, 0, hint+1) // +1 so that reading EOF does not grow it
	var chunks [][]byte
	total := int64(0)
	// Members are read one at a time so that what follows the last one
	// can be told apart from a member cut short: like Python's gzip, zero
	// padding is ignored and anything else is an error.
	zr.Multistream(false)
	for {
		if len(buf) == cap(buf) {
			chunks = append(chunks, buf)
			buf = make([]byte, 0, min(max(2*cap(buf), 1<<20), 16<<20))
		}
		n, err := zr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if total += int64(n); total > limit {
			return nil, formatErrorf(path, "decompresses to more than %d bytes, too large for a CIFAR file", limit)
		}
		switch {
		case err == io.EOF:
			next, _ := br.Peek(2)
			if len(next) == 2 && next[0] == 0x1f && next[1] == 0x8b {
				if err := zr.Reset(br); err != nil {
					return nil, formatErrorf(path, "bad gzip header after %d bytes: %v", total, err)
				}
				zr.Multistream(false)
				continue
			}
			if err := onlyZeros(br); err != nil {
				return nil, formatErrorf(path, "%v", err)
			}
			if chunks == nil {
				return buf, nil
			}
			out := make([]byte, 0, total)
			for _, c := range chunks {
				out = append(out, c...)
			}
			return append(out, buf...), nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, formatErrorf(path, "truncated: the gzip stream ends after %d bytes", total)
		case err != nil:
			return nil, formatErrorf(path, "%v", err) // "gzip: invalid checksum", ...
		}
	}
}

// onlyZeros reads r to its end and fails if it holds anything but zero
// bytes (the padding some tools leave after gzip data).
func onlyZeros(r io.Reader) error {
	var b [32 << 10]byte
	count, junk := 0, false
	for {
		n, err := r.Read(b[:])
		count += n
		junk = junk || len(bytes.Trim(b[:n], "\x00")) > 0
		if err == io.EOF {
			if junk {
				return fmt.Errorf("%d bytes that are not gzip after the compressed data", count)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}
