package hdf5

import (
	"errors"
	"fmt"
)

// rd reads little-endian fields from a byte slice. Reading past the end
// sets err and yields zeros, so parsers check err once at the end.
type rd struct {
	b       []byte
	off     int
	err     error
	offSize int // size of file addresses
	lenSize int // size of lengths
}

var errShort = errors.New("truncated structure")

func (r *rd) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off+n > len(r.b) || r.off+n < r.off {
		r.err = errShort
		return false
	}
	return true
}

func (r *rd) u8() byte {
	if !r.need(1) {
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *rd) un(n int) uint64 {
	if !r.need(n) {
		return 0
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(r.b[r.off+i])
	}
	r.off += n
	return v
}

func (r *rd) u16() uint16    { return uint16(r.un(2)) }
func (r *rd) u32() uint32    { return uint32(r.un(4)) }
func (r *rd) u64() uint64    { return r.un(8) }
func (r *rd) addr() uint64   { return r.unAll(r.offSize) }
func (r *rd) length() uint64 { return r.unAll(r.lenSize) }

// unAll reads an n-byte value where all ones means undefined: it is
// widened to undef.
func (r *rd) unAll(n int) uint64 {
	v := r.un(n)
	if n < 8 && v == 1<<(8*uint(n))-1 {
		return undef
	}
	return v
}

func (r *rd) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

func (r *rd) skip(n int) { r.bytes(n) }

func (r *rd) left() int { return len(r.b) - r.off }

// sig checks a 4-byte signature.
func (r *rd) sig(s string) {
	if b := r.bytes(4); r.err == nil && string(b) != s {
		r.err = fmt.Errorf("bad signature %q, want %q", b, s)
	}
}

// checksum verifies the lookup3 checksum of b[start:r.off] stored next.
func (r *rd) checksum(start int) {
	if r.err != nil {
		return
	}
	if start < 0 || start > r.off {
		r.err = errShort
		return
	}
	data := r.b[start:r.off]
	if got := r.u32(); r.err == nil && !checksumOK(got, data) {
		r.err = fmt.Errorf("checksum mismatch (stored %#08x, computed %#08x)", got, lookup3(data))
	}
}

// cstring is the NUL-terminated string at the start of b.
func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
