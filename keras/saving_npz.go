package keras

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// npzWriter writes an npz archive as numpy.savez does: member "<key>.npy"
// per array, stored uncompressed.
type npzWriter struct {
	zw   *zip.Writer
	seen map[string]bool
	sums map[string]uint32 // CRC-32C of each member's bytes; nil: none kept
}

func newNPZWriter(w io.Writer) *npzWriter {
	return &npzWriter{zw: zip.NewWriter(w), seen: map[string]bool{}}
}

// checksummed makes w record the CRC-32C of every array it writes and
// store them, at close, as the array [checksumKey].
func (w *npzWriter) checksummed() *npzWriter {
	w.sums = map[string]uint32{}
	return w
}

func (w *npzWriter) close() error {
	if w.sums != nil {
		keys := sortedKeys(w.sums)
		vals := make([]int64, len(keys))
		for i, k := range keys {
			vals[i] = int64(w.sums[k])
		}
		w.sums = nil
		if err := w.addInt64(checksumKey, []int{len(vals)}, vals); err != nil {
			return err
		}
	}
	return w.zw.Close()
}

// npyHeader is the .npy version 1.0 header of a C-order array, padded so
// the data starts at a multiple of 64 bytes.
func npyHeader(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + dims[0] + ",)"
	}
	h := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple + ", }"
	pad := (64 - (10+len(h)+1)%64) % 64
	h += strings.Repeat(" ", pad) + "\n"
	b := make([]byte, 0, 10+len(h))
	b = append(b, "\x93NUMPY"...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(b, h...)
}

// add writes one array whose elements put encodes, size bytes each.
func (w *npzWriter) add(key, descr string, shape []int, n, size int, put func(b []byte, i int)) error {
	if w.seen[key] {
		return fmt.Errorf("two arrays are named %q", key)
	}
	w.seen[key] = true
	want := 1
	for _, d := range shape {
		want *= d
	}
	if want != n {
		return fmt.Errorf("array %q: %d values for shape %v", key, n, shape)
	}
	zf, err := w.zw.CreateHeader(&zip.FileHeader{Name: key + ".npy", Method: zip.Store, Modified: time.Now()})
	if err != nil {
		return err
	}
	fw := zf
	var sum hash.Hash32
	if w.sums != nil {
		sum = crc32.New(castagnoli)
		fw = io.MultiWriter(zf, sum)
		defer func() { w.sums[key] = sum.Sum32() }()
	}
	if _, err := fw.Write(npyHeader(descr, shape)); err != nil {
		return err
	}
	const chunk = 1 << 14
	buf := make([]byte, min(n, chunk)*size)
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		b := buf[:(end-start)*size]
		for i := start; i < end; i++ {
			put(b[(i-start)*size:], i)
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (w *npzWriter) addFloat32(key string, shape []int, data []float32) error {
	return w.add(key, "<f4", shape, len(data), 4, func(b []byte, i int) {
		binary.LittleEndian.PutUint32(b, math.Float32bits(data[i]))
	})
}

func (w *npzWriter) addFloat64(key string, shape []int, data []float64) error {
	return w.add(key, "<f8", shape, len(data), 8, func(b []byte, i int) {
		binary.LittleEndian.PutUint64(b, math.Float64bits(data[i]))
	})
}

func (w *npzWriter) addInt64(key string, shape []int, data []int64) error {
	return w.add(key, "<i8", shape, len(data), 8, func(b []byte, i int) {
		binary.LittleEndian.PutUint64(b, uint64(data[i]))
	})
}

// npzReader reads the arrays of an npz archive by key (member name without
// ".npy"). It trusts no size the archive declares: an array is read only
// after its shape has been checked against the bytes its member can hold
// and against what the caller expects, and its bytes are allocated as
// they arrive. When the archive holds [checksumKey], every array read is
// checked against its CRC-32C.
type npzReader struct {
	members map[string]*zip.File
	keys    []string
	size    int64             // bytes of the archive
	sums    map[string]uint32 // from checksumKey; nil if the archive has none
}

var errNotNPZ = errors.New("not an npz archive")

// checksumKey is the array of a checksummed archive that holds the CRC-32C
// (Castagnoli) of each other member's bytes (its whole .npy: header and
// data), as int64s in the sorted order of their keys.
const checksumKey = "checkpoint/crc32c"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maxDeflateRatio is the most DEFLATE can expand: 258 bytes from about 2
// bits, so a member can never hold more than this many times its
// compressed size.
const maxDeflateRatio = 1032

func newNPZReader(r io.ReaderAt, size int64) (*npzReader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errNotNPZ, err)
	}
	out := &npzReader{members: map[string]*zip.File{}, size: size}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := out.members[key]; dup {
			return nil, fmt.Errorf("the archive holds two arrays named %q", key)
		}
		out.members[key] = f
		if key != checksumKey {
			out.keys = append(out.keys, key)
		}
	}
	if out.members[checksumKey] != nil {
		if err := out.readChecksums(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readChecksums reads the table of checksums of a checksummed archive.
func (r *npzReader) readChecksums() error {
	a, err := r.read(checksumKey, func(shape []int) error {
		if len(shape) != 1 || shape[0] != len(r.keys) {
			return fmt.Errorf("shape %v, but the archive holds %d other arrays", shape, len(r.keys))
		}
		return nil
	})
	if err != nil {
		return err
	}
	vals, err := a.int64s()
	if err != nil {
		return err
	}
	keys := slices.Sorted(slices.Values(r.keys))
	sums := make(map[string]uint32, len(keys))
	for i, k := range keys {
		if vals[i] < 0 || vals[i] > math.MaxUint32 {
			return fmt.Errorf("array %q: %d is not a CRC-32C", checksumKey, vals[i])
		}
		sums[k] = uint32(vals[i])
	}
	r.sums = sums
	return nil
}

func (r *npzReader) has(key string) bool { return r.members[key] != nil }

// hasPrefix reports whether an array's name starts with prefix.
func (r *npzReader) hasPrefix(prefix string) bool {
	for k := range r.members {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// describe lists the keys for error messages.
func (r *npzReader) describe() string {
	if len(r.keys) == 0 {
		return "no arrays"
	}
	const most = 8
	shown := r.keys[:min(len(r.keys), most)]
	s := fmt.Sprintf("%d arrays: %s", len(r.keys), strings.Join(shown, ", "))
	if len(r.keys) > most {
		s += ", ..."
	}
	return s
}

// npyArray is one array's shape, dtype and little- or big-endian bytes.
type npyArray struct {
	key    string
	shape  []int
	order  binary.ByteOrder
	kind   byte // 'f', 'i', 'u' or 'b'
	size   int  // bytes per element
	raw    []byte
	length int
}

// shapeIs accepts exactly shape want.
func shapeIs(want []int) func([]int) error {
	return func(shape []int) error {
		if !slices.Equal(shape, want) {
			return fmt.Errorf("shape %s, want %s", shapeStr(shape), shapeStr(want))
		}
		return nil
	}
}

// atMost accepts arrays of at most n elements.
func atMost(n int) func([]int) error {
	return func(shape []int) error {
		size := 1
		for _, d := range shape {
			if d > n {
				return fmt.Errorf("shape %s: more than %d elements", shapeStr(shape), n)
			}
			size *= d
			if size > n {
				return fmt.Errorf("shape %s: more than %d elements", shapeStr(shape), n)
			}
		}
		return nil
	}
}

// read reads array key after accept has approved its shape (read
// allocates nothing for the data before that).
func (r *npzReader) read(key string, accept func(shape []int) error) (a npyArray, err error) {
	f := r.members[key]
	if f == nil {
		return a, fmt.Errorf("no array %q", key)
	}
	// What the member can hold, whatever it declares.
	room := f.CompressedSize64
	switch {
	case f.CompressedSize64 > uint64(r.size):
		return a, fmt.Errorf("array %q: its zip entry claims %d bytes in an archive of %d", key, f.CompressedSize64, r.size)
	case f.Method == zip.Store && f.UncompressedSize64 != f.CompressedSize64:
		return a, fmt.Errorf("array %q: a stored zip entry of %d bytes that claims %d uncompressed", key, f.CompressedSize64, f.UncompressedSize64)
	case f.Method == zip.Deflate:
		room = f.CompressedSize64 * maxDeflateRatio
	}
	room = min(room, f.UncompressedSize64)
	rc, err := f.Open()
	if err != nil {
		return a, fmt.Errorf("array %q: %w", key, err)
	}
	defer rc.Close()
	var in io.Reader = rc
	var sum hash.Hash32
	if r.sums != nil && key != checksumKey {
		sum = crc32.New(castagnoli)
		in = io.TeeReader(rc, sum)
	}
	cr := &countingReader{r: in}
	hdr, err := readNPYHeader(cr)
	if err != nil {
		return a, fmt.Errorf("array %q: %w", key, err)
	}
	a.key = key
	a.shape = hdr.shape
	d := hdr.descr
	if len(d) < 3 {
		return a, fmt.Errorf("array %q: unsupported dtype %q", key, d)
	}
	switch d[0] {
	case '<', '|', '=':
		a.order = binary.LittleEndian
	case '>':
		a.order = binary.BigEndian
	default:
		return a, fmt.Errorf("array %q: unsupported dtype %q", key, d)
	}
	a.kind = d[1]
	if a.size, err = strconv.Atoi(d[2:]); err != nil || !strings.ContainsRune("fiub", rune(a.kind)) ||
		(a.kind == 'f' && a.size != 4 && a.size != 8) || (a.kind != 'f' && a.size != 1 && a.size != 2 && a.size != 4 && a.size != 8) {
		return a, fmt.Errorf("array %q: unsupported dtype %q (want a float or integer type)", key, d)
	}
	if hdr.fortran && len(a.shape) > 1 {
		return a, fmt.Errorf("array %q is in Fortran order, which is not supported", key)
	}
	// The data must fit in what the member holds after its header.
	var avail uint64
	if room > uint64(cr.n) {
		avail = (room - uint64(cr.n)) / uint64(a.size)
	}
	a.length = 1
	for _, n := range a.shape {
		if n != 0 && uint64(a.length) > avail/uint64(n) {
			return a, fmt.Errorf("array %q: shape %s needs more bytes than its zip entry holds (%d)", key, shapeStr(a.shape), f.UncompressedSize64)
		}
		a.length *= n
	}
	if accept != nil {
		if err := accept(a.shape); err != nil {
			return a, fmt.Errorf("array %q: %w", key, err)
		}
	}
	if a.raw, err = readGrowing(cr, a.length*a.size); err != nil {
		return a, fmt.Errorf("array %q: truncated data: %w", key, err)
	}
	// One more read must find the end; at the end the zip reader checks
	// the member's CRC-32.
	var one [1]byte
	if n, err := io.ReadFull(cr, one[:]); n > 0 {
		return a, fmt.Errorf("array %q holds more bytes than its shape %s needs", key, shapeStr(a.shape))
	} else if err != io.EOF {
		return a, fmt.Errorf("array %q: %w", key, err)
	}
	if sum != nil {
		want, ok := r.sums[key]
		if !ok {
			return a, fmt.Errorf("array %q has no checksum in %s", key, checksumKey)
		}
		if got := sum.Sum32(); got != want {
			return a, fmt.Errorf("array %q is corrupt: its CRC-32C is %08x, the file recorded %08x", key, got, want)
		}
	}
	return a, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readGrowing reads exactly n bytes, allocating as they arrive (at most
// twice what has arrived, plus 64 KiB), so that a size the input claims
// but does not hold costs nothing.
func readGrowing(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, 64<<10))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n, 2*cap(buf))-len(buf))
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if len(buf) == n {
			break
		}
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

func (a npyArray) float64At(i int) float64 {
	b := a.raw[i*a.size:]
	switch a.kind {
	case 'f':
		if a.size == 4 {
			return float64(math.Float32frombits(a.order.Uint32(b)))
		}
		return math.Float64frombits(a.order.Uint64(b))
	case 'b', 'u':
		switch a.size {
		case 1:
			return float64(b[0])
		case 2:
			return float64(a.order.Uint16(b))
		case 4:
			return float64(a.order.Uint32(b))
		}
		return float64(a.order.Uint64(b))
	}
	switch a.size {
	case 1:
		return float64(int8(b[0]))
	case 2:
		return float64(int16(a.order.Uint16(b)))
	case 4:
		return float64(int32(a.order.Uint32(b)))
	}
	return float64(int64(a.order.Uint64(b)))
}

// float32s returns the values as float32 (float64 arrays are narrowed).
func (a npyArray) float32s() ([]float32, error) {
	if a.kind != 'f' {
		return nil, fmt.Errorf("dtype is not a float type")
	}
	out := make([]float32, a.length)
	if a.size == 4 {
		for i := range out {
			out[i] = math.Float32frombits(a.order.Uint32(a.raw[4*i:]))
		}
		return out, nil
	}
	for i := range out {
		out[i] = float32(a.float64At(i))
	}
	return out, nil
}

func (a npyArray) float64s() ([]float64, error) {
	out := make([]float64, a.length)
	for i := range out {
		out[i] = a.float64At(i)
	}
	return out, nil
}

func (a npyArray) int64s() ([]int64, error) {
	out := make([]int64, a.length)
	for i := range out {
		if a.kind == 'i' && a.size == 8 {
			out[i] = int64(a.order.Uint64(a.raw[8*i:]))
			continue
		}
		f := a.float64At(i)
		if f != math.Trunc(f) {
			return nil, fmt.Errorf("array %q holds a non-integer %v", a.key, f)
		}
		out[i] = int64(f)
	}
	return out, nil
}
