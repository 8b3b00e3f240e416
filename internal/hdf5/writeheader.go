package hdf5

import "fmt"

// wmsg is one object header message to write.
type wmsg struct {
	typ   byte
	flags byte
	data  []byte
}

// encodeObjectHeader is a version 2 object header holding msgs in a
// single chunk.
func encodeObjectHeader(msgs []wmsg) ([]byte, error) {
	size := 0
	for _, m := range msgs {
		if len(m.data) > 0xffff {
			return nil, fmt.Errorf("object header message of %d bytes exceeds 64 KiB", len(m.data))
		}
		size += 4 + len(m.data)
	}
	var b buf
	b.bytes([]byte("OHDR"))
	b.u8(2)
	switch {
	case size < 1<<8:
		b.u8(0)
		b.u8(byte(size))
	case size < 1<<16:
		b.u8(1)
		b.u16(uint16(size))
	default:
		b.u8(2)
		b.u32(uint32(size))
	}
	for _, m := range msgs {
		b.u8(m.typ)
		b.u16(uint16(len(m.data)))
		b.u8(m.flags)
		b.bytes(m.data)
	}
	b.u32(lookup3(b))
	return b, nil
}

// gheap is a global heap collection being built (variable-length strings).
type gheap struct {
	addr uint64
	objs [][]byte
	used int // bytes of objects including their 16-byte headers
}

const (
	gheapMin     = 4096 // HDF5 reads at least this much of a collection
	gheapMaxObjs = 0xfff0
	gheapTarget  = 1 << 20
)

func (h *gheap) reset() { h.objs, h.used = nil, 0 }

func (h *gheap) size() int {
	n := 16 + h.used
	if n+16 <= gheapMin {
		return gheapMin
	}
	return n + 16 // room for the free-space object
}

func (h *gheap) encode() []byte {
	total := h.size()
	var b buf
	b.bytes([]byte("GCOL"))
	b.bytes([]byte{1, 0, 0, 0})
	b.u64(uint64(total))
	for i, o := range h.objs {
		b.u16(uint16(i + 1))
		b.u16(0)
		b.u32(0)
		b.u64(uint64(len(o)))
		b.bytes(o)
		b.pad8()
	}
	if free := total - len(b); free >= 16 {
		b.u16(0)
		b.u16(0)
		b.u32(0)
		b.u64(uint64(free))
	}
	for len(b) < total {
		b.u8(0)
	}
	return b
}

// vlenDescriptors stores s in global heaps and returns one 16-byte
// descriptor (length, collection address, object index) per string.
func (e *encoder) vlenDescriptors(s []string) []byte {
	var b buf
	for _, str := range s {
		if str == "" {
			b.u32(0)
			b.u64(0)
			b.u32(0)
			continue
		}
		need := 16 + int(align8(uint64(len(str))))
		if e.heapN == 0 || len(e.heaps[e.heapN-1].objs) >= gheapMaxObjs ||
			(e.heaps[e.heapN-1].used > 0 && e.heaps[e.heapN-1].used+need > gheapTarget) {
			if e.heapN == len(e.heaps) {
				e.heaps = append(e.heaps, &gheap{})
			}
			e.heapN++
		}
		h := e.heaps[e.heapN-1]
		h.objs = append(h.objs, []byte(str))
		h.used += need
		b.u32(uint32(len(str)))
		b.u64(h.addr)
		b.u32(uint32(len(h.objs)))
	}
	return b
}
