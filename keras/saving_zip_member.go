package keras

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
)

// openZipMember gives random access to member name of the archive zr,
// read from the file at path: a stored (uncompressed) member, as Keras
// stores model.weights.h5, is read in place from the file, after one
// streaming pass that checks its CRC-32 (as reading it whole did), so
// that its bytes are never all in memory; a compressed one is inflated
// into memory (at most limit bytes). close releases the file; call it
// once the member is no longer read.
func openZipMember(path string, zr *zip.Reader, name string, limit int64) (r io.ReaderAt, size int64, close func() error, err error) {
	noop := func() error { return nil }
	var zf *zip.File
	for _, f := range zr.File {
		if f.Name == name {
			zf = f
			break
		}
	}
	if zf == nil {
		return nil, 0, nil, fmt.Errorf("the archive has no %s", name)
	}
	if zf.Method != zip.Store || path == "" {
		b, err := readZipMember(zr, name, limit)
		if err != nil {
			return nil, 0, nil, err
		}
		return bytes.NewReader(b), int64(len(b)), noop, nil
	}
	if zf.UncompressedSize64 > uint64(limit) {
		return nil, 0, nil, fmt.Errorf("%s: %d bytes is more than a %s can need (%d)", name, zf.UncompressedSize64, name, limit)
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", name, err)
	}
	// Reading to the end checks the CRC; one byte past the declared size
	// tells a member that lied about it.
	n, err := io.Copy(io.Discard, io.LimitReader(rc, int64(zf.UncompressedSize64)+1))
	rc.Close()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", name, err)
	}
	if uint64(n) != zf.UncompressedSize64 {
		return nil, 0, nil, fmt.Errorf("%s: %d bytes where its header declares %d", name, n, zf.UncompressedSize64)
	}
	off, err := zf.DataOffset()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", name, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	return io.NewSectionReader(f, off, int64(zf.UncompressedSize64)), int64(zf.UncompressedSize64), f.Close, nil
}
