package hdf5

import (
	"errors"
	"fmt"
)

// globalHeap returns the objects of the global heap collection at addr
// by index, parsing each collection once.
func (d *decoder) globalHeap(addr uint64) (map[uint32][]byte, error) {
	if h, ok := d.gheaps[addr]; ok {
		return h, nil
	}
	r, err := d.rdAt(addr, uint64(8+d.lenSize))
	if err != nil {
		return nil, fmt.Errorf("global heap: %w", err)
	}
	r.sig("GCOL")
	r.skip(4)
	size := r.length()
	if r.err != nil {
		return nil, fmt.Errorf("global heap: %w", r.err)
	}
	b, err := d.read(addr, size)
	if err != nil {
		return nil, fmt.Errorf("global heap: %w", err)
	}
	r = d.rd(b)
	r.off = 8 + d.lenSize
	objs := map[uint32][]byte{}
	for r.left() >= 8+d.lenSize {
		idx := r.u16()
		r.skip(6)
		n := r.length()
		if idx == 0 || r.err != nil { // free space: the rest of the collection
			break
		}
		if n > uint64(r.left()) {
			return nil, errors.New("global heap object overruns its collection")
		}
		objs[uint32(idx)] = r.bytes(int(n))
		r.skip(int(align8(n) - n))
		r.err = nil
	}
	d.gheaps[addr] = objs
	return objs, nil
}

// vlenStrings resolves n variable-length string descriptors (length,
// collection address, index).
func (d *decoder) vlenStrings(raw []byte, n int) ([]string, error) {
	step := 4 + d.offSize + 4
	if len(raw) < n*step {
		return nil, errors.New("variable-length string descriptors truncated")
	}
	out := make([]string, n)
	for i := range out {
		r := d.rd(raw[i*step : (i+1)*step])
		k := uint64(r.u32())
		addr := r.addr()
		idx := r.u32()
		if k == 0 {
			continue
		}
		if addr == 0 || addr == undef {
			return nil, errors.New("variable-length string without a heap")
		}
		h, err := d.globalHeap(addr)
		if err != nil {
			return nil, err
		}
		obj, ok := h[idx]
		if !ok || uint64(len(obj)) < k {
			return nil, fmt.Errorf("variable-length string %d missing from its global heap", i)
		}
		if err := d.charge(k); err != nil {
			return nil, err
		}
		out[i] = string(obj[:k])
	}
	return out, nil
}
