package hdf5

import (
	"fmt"
	"unicode/utf8"
)

// Message types of the object header messages this package reads or writes.
const (
	msgNIL          = 0x00
	msgDataspace    = 0x01
	msgLinkInfo     = 0x02
	msgDatatype     = 0x03
	msgFillOld      = 0x04
	msgFill         = 0x05
	msgLink         = 0x06
	msgExternal     = 0x07
	msgLayout       = 0x08
	msgGroupInfo    = 0x0A
	msgFilters      = 0x0B
	msgAttribute    = 0x0C
	msgContinuation = 0x10
	msgSymbolTable  = 0x11
	msgAttrInfo     = 0x15
)

const undef = ^uint64(0) // HDF5's undefined address

// buf is an append-only little-endian byte builder.
type buf []byte

func (b *buf) u8(v byte)    { *b = append(*b, v) }
func (b *buf) u16(v uint16) { *b = append(*b, byte(v), byte(v>>8)) }
func (b *buf) u32(v uint32) { *b = append(*b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
func (b *buf) u64(v uint64) { b.u32(uint32(v)); b.u32(uint32(v >> 32)) }
func (b *buf) bytes(p []byte) {
	*b = append(*b, p...)
}
func (b *buf) pad8() {
	for len(*b)%8 != 0 {
		*b = append(*b, 0)
	}
}

// encodeDatatype is the datatype message for a Value; strLen is the
// fixed string size when fixed is set.
func encodeDatatype(v any, fixed bool) ([]byte, error) {
	var b buf
	fixedPoint := func(size int, signed bool) {
		bits := byte(0)
		if signed {
			bits = 0x08
		}
		b.u8(0x10 | 0) // version 1, class 0
		b.bytes([]byte{bits, 0, 0})
		b.u32(uint32(size))
		b.u16(0)
		b.u16(uint16(8 * size))
	}
	float := func(size int) {
		b.u8(0x10 | 1)
		var sign, expLoc, expSize, mantSize byte
		var bias uint32
		if size == 4 {
			sign, expLoc, expSize, mantSize, bias = 31, 23, 8, 23, 127
		} else {
			sign, expLoc, expSize, mantSize, bias = 63, 52, 11, 52, 1023
		}
		b.bytes([]byte{0x20, sign, 0})
		b.u32(uint32(size))
		b.u16(0)
		b.u16(uint16(8 * size))
		b.bytes([]byte{expLoc, expSize, 0, mantSize})
		b.u32(bias)
	}
	switch x := v.(type) {
	case []float32:
		float(4)
	case []float64:
		float(8)
	case []int8:
		fixedPoint(1, true)
	case []int16:
		fixedPoint(2, true)
	case []int32:
		fixedPoint(4, true)
	case []int64:
		fixedPoint(8, true)
	case []uint8:
		fixedPoint(1, false)
	case []uint16:
		fixedPoint(2, false)
	case []uint32:
		fixedPoint(4, false)
	case []uint64:
		fixedPoint(8, false)
	case []bool:
		// h5py's bool: an enum over int8 with FALSE=0 and TRUE=1.
		b.u8(0x10 | 8)
		b.bytes([]byte{2, 0, 0})
		b.u32(1)
		fixedPoint(1, true)
		for _, n := range []string{"FALSE", "TRUE"} {
			name := make([]byte, (len(n)+8)&^7) // null terminated, padded to 8
			copy(name, n)
			b.bytes(name)
		}
		b.bytes([]byte{0, 1})
	case []string:
		if fixed {
			n := fixedStrLen(x)
			b.u8(0x10 | 3)
			b.bytes([]byte{1, 0, 0}) // null padded, ASCII
			b.u32(uint32(n))
			break
		}
		// Variable-length UTF-8 string over unsigned chars, as h5py's str.
		b.u8(0x10 | 9)
		b.bytes([]byte{0x01, 0x01, 0}) // string, null terminated; UTF-8
		b.u32(16)
		fixedPoint(1, false)
	default:
		return nil, fmt.Errorf("unsupported value type %T", v)
	}
	return b, nil
}

// fixedStrLen is the fixed string size that holds every string of s.
func fixedStrLen(s []string) int {
	n := 1
	for _, e := range s {
		n = max(n, len(e))
	}
	return n
}

// encodeDataspace is a version 2 dataspace message.
func encodeDataspace(shape []int) []byte {
	var b buf
	b.u8(2)
	b.u8(byte(len(shape)))
	b.u8(0)
	if len(shape) == 0 {
		b.u8(0) // scalar
		return b
	}
	b.u8(1) // simple
	for _, d := range shape {
		b.u64(uint64(d))
	}
	return b
}

// encodeAttribute is a version 3 attribute message; data is the encoded
// value (vlen descriptors already resolved).
func encodeAttribute(name string, dt, ds, data []byte) []byte {
	var b buf
	b.u8(3)
	b.u8(0)
	b.u16(uint16(len(name) + 1))
	b.u16(uint16(len(dt)))
	b.u16(uint16(len(ds)))
	b.u8(charset(name))
	b.bytes([]byte(name))
	b.u8(0)
	b.bytes(dt)
	b.bytes(ds)
	b.bytes(data)
	return b
}

func charset(s string) byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return 1
		}
	}
	return 0
}

// encodeLink is a version 1 hard link message with a creation order.
func encodeLink(name string, order uint64, addr uint64) []byte {
	var b buf
	b.u8(1)
	flags := byte(0x04) // creation order present
	var lenSize int
	switch {
	case len(name) < 1<<8:
		lenSize = 1
	case len(name) < 1<<16:
		flags |= 1
		lenSize = 2
	default:
		flags |= 2
		lenSize = 4
	}
	cs := charset(name)
	if cs != 0 {
		flags |= 0x10
	}
	b.u8(flags)
	b.u64(order)
	if cs != 0 {
		b.u8(cs)
	}
	switch lenSize {
	case 1:
		b.u8(byte(len(name)))
	case 2:
		b.u16(uint16(len(name)))
	default:
		b.u32(uint32(len(name)))
	}
	b.bytes([]byte(name))
	b.u64(addr)
	return b
}

// encodeLinkInfo says the group tracks and indexes creation order (as h5py
// with track_order=True) and stores its links compactly.
func encodeLinkInfo(n int) []byte {
	var b buf
	b.u8(0)
	b.u8(0x03)
	b.u64(uint64(n))
	b.u64(undef) // fractal heap
	b.u64(undef) // name index
	b.u64(undef) // creation order index
	return b
}

// checkName refuses names HDF5 cannot hold as a link or attribute name.
func checkName(name string) error {
	switch {
	case name == "" || name == ".":
		return fmt.Errorf("invalid name %q", name)
	case !utf8.ValidString(name):
		return fmt.Errorf("name %q is not UTF-8", name)
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' || name[i] == 0 {
			return fmt.Errorf("name %q contains %q", name, name[i])
		}
	}
	return nil
}
