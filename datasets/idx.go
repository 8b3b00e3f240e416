package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"gorgonia.org/tensor"
)

// Magic numbers of the idx format used by MNIST and Fashion-MNIST: two zero
// bytes, 0x08 for "unsigned byte" and the number of dimensions.
const (
	idxImagesMagic = 0x00000803 // 2051: unsigned bytes, 3 dims (N, rows, cols)
	idxLabelsMagic = 0x00000801 // 2049: unsigned bytes, 1 dim (N)
)

// maxIDXBytes bounds what a header may claim, so that a corrupt header
// produces an error instead of an attempt to allocate terabytes.
const maxIDXBytes = 1 << 32

// readIDX reads an idx file of unsigned bytes, gzipped or not. Compression
// is detected from the content (gzip's magic bytes), not the file name, so a
// file unpacked but not renamed, or the reverse, still loads. what names the
// payload in error messages ("pixels", "labels").
func readIDX(path string, wantMagic uint32, what string) (dims []int, data []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: %w", err)
	}

	br := bufio.NewReaderSize(f, 1<<16)
	var r io.Reader = br
	compressed := false
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, formatErrorf(path, "bad gzip header: %v", err)
		}
		defer zr.Close()
		r = zr
		compressed = true
	}

	var hdr [4]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, nil, readFailure(path, err, "magic number", 4, n)
	}
	magic := binary.BigEndian.Uint32(hdr[:])
	if magic != wantMagic {
		return nil, nil, formatErrorf(path, "wrong magic number %d (0x%08x), want %d: not an idx file of %s",
			magic, magic, wantMagic, what)
	}
	ndims := int(wantMagic & 0xff)
	dimBuf := make([]byte, 4*ndims)
	if n, err := io.ReadFull(r, dimBuf); err != nil {
		return nil, nil, readFailure(path, err, "dimensions", len(dimBuf), n)
	}
	dims = make([]int, ndims)
	total := int64(1)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(dimBuf[4*i:]))
		total *= int64(dims[i])
		if total > maxIDXBytes {
			return nil, nil, formatErrorf(path, "implausible dimensions %v", dims[:i+1])
		}
	}
	// An uncompressed file's size tells whether the payload is all there
	// before anything is allocated.
	if !compressed {
		if have := st.Size() - 4 - int64(len(dimBuf)); have < total {
			return nil, nil, formatErrorf(path, "truncated: want %d bytes of %s, got %d", total, what, max(have, 0))
		}
	}

	data, err = readExactly(r, int(total))
	if err != nil {
		return nil, nil, readFailure(path, err, what, int(total), len(data))
	}
	// Reading to the end makes gzip verify its checksum, and catches files
	// that hold more than their header says (usually a wrong header).
	var one [1]byte
	switch n, err := io.ReadFull(r, one[:]); {
	case n > 0:
		return nil, nil, formatErrorf(path, "unexpected data after the %d bytes of %s announced by the header %v", total, what, dims)
	case err != io.EOF:
		return nil, nil, formatErrorf(path, "%v", err)
	}
	return dims, data, nil
}

// readFailure turns a short or failed read into an error naming the file.
func readFailure(path string, err error, what string, want, got int) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErrorf(path, "truncated: want %d bytes of %s, got %d", want, what, got)
	}
	return formatErrorf(path, "reading %s: %v", what, err)
}

// readExactly reads n bytes. It grows its buffer as data actually arrives
// instead of trusting n up front, so a corrupt gzipped header cannot make it
// allocate gigabytes for a file of a few bytes.
func readExactly(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, 64<<20))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n-len(buf), cap(buf)))
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err == io.EOF && len(buf) < n {
			return buf, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return buf, err
		}
	}
	return buf, nil
}

// readIDXImages reads an idx3 image file and checks the image size.
func readIDXImages(path string, rows, cols int) (*tensor.Dense, error) {
	dims, data, err := readIDX(path, idxImagesMagic, "pixels")
	if err != nil {
		return nil, err
	}
	if dims[1] != rows || dims[2] != cols {
		return nil, formatErrorf(path, "images are %dx%d, want %dx%d", dims[1], dims[2], rows, cols)
	}
	return tensor.New(tensor.WithShape(dims...), tensor.WithBacking(data)), nil
}

// readIDXLabels reads an idx1 label file.
func readIDXLabels(path string) (*tensor.Dense, error) {
	dims, data, err := readIDX(path, idxLabelsMagic, "labels")
	if err != nil {
		return nil, err
	}
	return tensor.New(tensor.WithShape(dims...), tensor.WithBacking(data)), nil
}
