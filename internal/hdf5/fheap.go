package hdf5

import (
	"errors"
	"fmt"
	"math/bits"
)

// fheap is a fractal heap (dense link and attribute storage): its direct
// blocks located by heap offset, read on demand.
type fheap struct {
	d         *decoder
	idLen     int
	offBytes  int // heap offset size in a managed object ID
	lenBytes  int // object length size in a managed object ID
	checksums bool
	huge      uint64 // v2 B-tree of huge objects
	blocks    []fblock
	cache     map[uint64][]byte // direct blocks read so far
}

type fblock struct{ off, size, addr uint64 }

func (d *decoder) fractalHeap(addr uint64) (*fheap, error) {
	r, err := d.rdAt(addr, uint64(4+1+2+2+1+4+12*d.lenSize+3*d.offSize+2+2+2+2+4))
	if err != nil {
		return nil, fmt.Errorf("fractal heap header: %w", err)
	}
	r.sig("FRHP")
	r.u8()
	h := &fheap{d: d, idLen: int(r.u16())}
	filterLen := r.u16()
	flags := r.u8()
	h.checksums = flags&2 != 0
	maxObj := r.u32()
	r.length()
	h.huge = r.addr()
	r.length()
	r.addr()
	r.length()
	r.length()
	r.length()
	r.length()
	r.length()
	r.length()
	r.length()
	r.length()
	width := uint64(r.u16())
	start := r.length()
	maxDirect := r.length()
	maxHeapBits := int(r.u16())
	r.u16() // starting rows
	root := r.addr()
	rows := int(r.u16())
	if r.err != nil {
		return nil, fmt.Errorf("fractal heap header: %w", r.err)
	}
	if filterLen != 0 {
		return nil, errors.New("filtered fractal heaps are not supported")
	}
	if width == 0 || width&(width-1) != 0 || start == 0 || start&(start-1) != 0 ||
		maxDirect < start || maxDirect&(maxDirect-1) != 0 || maxDirect > d.size+start || maxHeapBits == 0 || maxHeapBits > 64 {
		return nil, errors.New("fractal heap with an invalid doubling table")
	}
	h.offBytes = (maxHeapBits + 7) / 8
	// As HDF5: the length takes the bytes of log2(max direct block size)
	// bits, or fewer when the largest managed object needs fewer.
	h.lenBytes = min((bits.Len64(maxDirect)-1+7)/8, encSize(uint64(maxObj)))
	if h.idLen < 1+h.offBytes+h.lenBytes || h.lenBytes <= 0 {
		return nil, errors.New("fractal heap IDs too short")
	}
	if root == undef {
		return h, nil
	}
	logW := bits.Len64(width) - 1
	maxDirRows := bits.Len64(maxDirect) - bits.Len64(start) + 2
	rowSize := func(r int) uint64 {
		if r == 0 {
			return start
		}
		return start << uint(r-1)
	}
	if rows == 0 {
		h.blocks = append(h.blocks, fblock{0, start, root})
		return h, nil
	}
	seen := map[uint64]bool{}
	var indirect func(addr, off uint64, nrows int) error
	indirect = func(addr, off uint64, nrows int) error {
		if seen[addr] || len(h.blocks) > d.lim.MaxObjects {
			return errors.New("fractal heap indirect block visited twice (cycle)")
		}
		seen[addr] = true
		if nrows <= 0 || nrows > 64 {
			return fmt.Errorf("fractal heap indirect block with %d rows", nrows)
		}
		nd := min(nrows, maxDirRows) * int(width)
		ni := max(0, nrows-maxDirRows) * int(width)
		hdr := 4 + 1 + d.offSize + h.offBytes
		r, err := d.rdAt(addr, uint64(hdr+(nd+ni)*d.offSize+4))
		if err != nil {
			return fmt.Errorf("fractal heap indirect block: %w", err)
		}
		r.sig("FHIB")
		r.skip(hdr - 4)
		type kid struct {
			addr, off uint64
			row       int
		}
		var kids []kid
		o := off
		for row := 0; row < nrows; row++ {
			for c := uint64(0); c < width; c++ {
				a := r.addr()
				if a != undef {
					kids = append(kids, kid{a, o, row})
				}
				o += rowSize(row)
			}
		}
		r.checksum(0)
		if r.err != nil {
			return fmt.Errorf("fractal heap indirect block: %w", r.err)
		}
		for _, k := range kids {
			if k.row < maxDirRows {
				h.blocks = append(h.blocks, fblock{k.off, rowSize(k.row), k.addr})
				continue
			}
			if err := indirect(k.addr, k.off, k.row-logW); err != nil {
				return err
			}
		}
		return nil
	}
	return h, indirect(root, 0, rows)
}

// get returns the object a heap ID names.
func (h *fheap) get(id []byte) ([]byte, error) {
	if len(id) < h.idLen || h.idLen == 0 {
		return nil, errors.New("short fractal heap ID")
	}
	id = id[:h.idLen]
	switch (id[0] >> 4) & 3 {
	case 0: // managed
		r := &rd{b: id, off: 1}
		off := r.un(h.offBytes)
		n := r.un(h.lenBytes)
		for _, b := range h.blocks {
			if off < b.off || off-b.off >= b.size {
				continue
			}
			if n > b.size-(off-b.off) {
				return nil, errors.New("fractal heap object overruns its block")
			}
			blk, ok := h.cache[b.addr]
			if !ok {
				var err error
				if blk, err = h.d.read(b.addr, b.size); err != nil {
					return nil, fmt.Errorf("fractal heap direct block: %w", err)
				}
				if len(blk) < 4 || string(blk[:4]) != "FHDB" {
					return nil, errors.New("fractal heap direct block without FHDB signature")
				}
				if h.cache == nil {
					h.cache = map[uint64][]byte{}
				}
				h.cache[b.addr] = blk
			}
			return blk[off-b.off : off-b.off+n], nil
		}
		return nil, fmt.Errorf("fractal heap offset %d in no direct block", off)
	case 1: // huge, through the huge-object B-tree (type 1 records)
		if h.huge == undef {
			return nil, errors.New("huge fractal heap object without a B-tree")
		}
		r := &rd{b: id, off: 1}
		want := r.un(min(h.idLen-1, h.d.lenSize))
		var out []byte
		err := h.d.btree2(h.huge, 1, func(rec []byte) error {
			rr := h.d.rd(rec)
			a, n, key := rr.addr(), rr.length(), rr.length()
			if rr.err != nil || key != want || out != nil {
				return rr.err
			}
			if err := h.d.charge(n); err != nil {
				return err
			}
			b, err := h.d.read(a, n)
			out = b
			return err
		})
		if err == nil && out == nil {
			err = fmt.Errorf("huge fractal heap object %d not found", want)
		}
		return out, err
	case 2: // tiny, stored in the ID
		n := int(id[0]&0x0f) + 1
		if 1+n > len(id) {
			return nil, errors.New("tiny fractal heap object overruns its ID")
		}
		return id[1 : 1+n], nil
	}
	return nil, errors.New("unknown fractal heap ID type")
}
