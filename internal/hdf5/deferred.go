package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// deferred is where a dataset's data lies in the file and how to decode
// it: what Decode read at once before Limits.DeferBytes, kept so that the
// data can be read later straight into the caller's memory.
type deferred struct {
	d     *decoder
	t     dtype
	n     uint64 // elements
	space dataspace
	lay   layout
	fs    []filter
	fill  []byte
	total uint64 // bytes in the file's type
}

// checkSpan checks, without reading the data, what can be checked of it:
// that contiguous storage holds the dataspace and lies inside the file,
// off the superblock; compact data its size. Chunks are checked as they
// are read.
func (s *deferred) checkSpan() error {
	switch s.lay.class {
	case 0:
		if uint64(len(s.lay.compact)) < s.total {
			return fmt.Errorf("compact data of %d bytes holds less than the %d bytes of the dataspace", len(s.lay.compact), s.total)
		}
	case 1:
		if s.lay.addr == undef || s.total == 0 {
			return nil
		}
		if s.lay.size < s.total {
			return fmt.Errorf("contiguous storage of %d bytes holds less than the %d bytes of the dataspace", s.lay.size, s.total)
		}
		d := s.d
		a := s.lay.addr + d.base
		if a < s.lay.addr || a > d.size || s.total > d.size-a {
			return fmt.Errorf("contiguous data: %d bytes at address %d lie beyond the end of the file (%d bytes)", s.total, s.lay.addr, d.size)
		}
		if a < d.sbHi && a+s.total > d.sbLo {
			return fmt.Errorf("contiguous data: %d bytes at address %d overlap the superblock (file bytes %d to %d)", s.total, s.lay.addr, d.sbLo, d.sbHi)
		}
	}
	return nil
}

// readRaw fills raw (s.total bytes) with the dataset's bytes in the
// file's type: the fill value where nothing was written, then the
// compact, contiguous or chunked data.
func (s *deferred) readRaw(raw []byte) error {
	d, lay := s.d, s.lay
	if s.fill != nil && !(lay.class == 1 && lay.addr != undef) {
		for i := 0; i+len(s.fill) <= len(raw); i += len(s.fill) {
			copy(raw[i:], s.fill)
		}
	}
	switch lay.class {
	case 0:
		if uint64(len(lay.compact)) < s.total {
			return fmt.Errorf("compact data of %d bytes holds less than the %d bytes of the dataspace", len(lay.compact), s.total)
		}
		copy(raw, lay.compact)
	case 1:
		if lay.addr != undef && s.total > 0 {
			if lay.size < s.total {
				return fmt.Errorf("contiguous storage of %d bytes holds less than the %d bytes of the dataspace", lay.size, s.total)
			}
			if err := d.readInto(raw, lay.addr); err != nil {
				return fmt.Errorf("contiguous data: %w", err)
			}
		}
	case 2:
		if err := d.chunked(lay, s.space, s.t, s.fs, raw); err != nil {
			return err
		}
	default:
		return errors.New("virtual datasets are not allowed")
	}
	return nil
}

// direct reports whether the data can be read into float32 memory as it
// is: contiguous little-endian float32 without filters, on a
// little-endian machine (amd64, arm64).
func (s *deferred) direct() bool {
	return s.lay.class == 1 && s.lay.addr != undef && s.t.class == 1 && s.t.size == 4 && !s.t.be && len(s.fs) == 0 && nativeLittleEndian
}

var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Deferred reports whether the dataset's data was left in the file
// (Limits.DeferBytes): its Value is nil; ReadFloat32s reads it.
func (ds *Dataset) Deferred() bool { return ds.src != nil }

// Len is the number of elements of the dataset.
func (ds *Dataset) Len() int {
	if ds.src != nil {
		return int(ds.src.n)
	}
	n := 1
	for _, d := range ds.Shape {
		n *= d
	}
	return n
}

// ReadFloat32s stores the dataset's values, converted to float32, in dst,
// whose length must be the dataset's element count. A deferred dataset is
// read from the file each call: a contiguous float32 one straight into
// dst's memory, any other through one buffer of its size in the file.
func (ds *Dataset) ReadFloat32s(dst []float32) error {
	if ds.src == nil {
		switch v := ds.Value.(type) {
		case []float32:
			if len(v) != len(dst) {
				return fmt.Errorf("hdf5: dataset %s: %d values, want %d", ds.Name, len(v), len(dst))
			}
			copy(dst, v)
		case []float64:
			if len(v) != len(dst) {
				return fmt.Errorf("hdf5: dataset %s: %d values, want %d", ds.Name, len(v), len(dst))
			}
			for i, x := range v {
				dst[i] = float32(x)
			}
		default:
			return fmt.Errorf("hdf5: dataset %s holds %T, not floats", ds.Name, ds.Value)
		}
		return nil
	}
	s := ds.src
	if uint64(len(dst)) != s.n {
		return fmt.Errorf("hdf5: dataset %s: %d values, want %d", ds.Name, s.n, len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	if s.direct() {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 4*len(dst))
		if err := s.d.readInto(b, s.lay.addr); err != nil {
			return fmt.Errorf("hdf5: dataset %s: contiguous data: %w", ds.Name, err)
		}
		return nil
	}
	raw := make([]byte, s.total)
	if err := s.readRaw(raw); err != nil {
		return fmt.Errorf("hdf5: dataset %s: %w", ds.Name, err)
	}
	return convertFloat32s(s.t, raw, dst)
}

// CheckData reads a deferred dataset's data and discards it, so that a
// caller can find corrupt or truncated data before it assigns anything:
// nothing to do for contiguous float32 data, whose extent Decode checked,
// nor for a dataset Decode read.
func (ds *Dataset) CheckData() error {
	s := ds.src
	if s == nil || s.direct() || s.n == 0 {
		return nil
	}
	raw := make([]byte, s.total)
	if err := s.readRaw(raw); err != nil {
		return fmt.Errorf("hdf5: dataset %s: %w", ds.Name, err)
	}
	return nil
}

// convertFloat32s decodes raw, float data of type t, into dst.
func convertFloat32s(t dtype, raw []byte, dst []float32) error {
	order := binary.ByteOrder(binary.LittleEndian)
	if t.be {
		order = binary.BigEndian
	}
	switch {
	case t.bf16:
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(order.Uint16(raw[2*i:])) << 16)
		}
	case t.class == 1 && t.size == 4:
		for i := range dst {
			dst[i] = math.Float32frombits(order.Uint32(raw[4*i:]))
		}
	case t.class == 1 && t.size == 8:
		for i := range dst {
			dst[i] = float32(math.Float64frombits(order.Uint64(raw[8*i:])))
		}
	default:
		v, err := decodeFixed(t, raw, len(dst))
		if err != nil {
			return err
		}
		switch x := v.(type) {
		case []float32:
			copy(dst, x)
		case []float64:
			for i, f := range x {
				dst[i] = float32(f)
			}
		default:
			return fmt.Errorf("%T where floats are expected", v)
		}
	}
	return nil
}
