package hdf5

import (
	"errors"
	"fmt"
)

// btree1 walks the version 1 B-tree at addr of node type typ (0: group
// nodes, 1: raw data chunks) and calls leaf for every child of a level 0
// node with the key to its left. keySize is the chunk key size for type 1
// (0 for groups, whose keys are lengths).
func (d *decoder) btree1(addr uint64, keySize int, leaf func(child uint64, key []byte) error) error {
	if keySize == 0 {
		keySize = d.lenSize
	}
	seen := map[uint64]bool{}
	var walk func(addr uint64, level int) error
	walk = func(addr uint64, level int) error {
		if seen[addr] {
			return errors.New("B-tree node visited twice (cycle)")
		}
		seen[addr] = true
		hdrSize := uint64(8 + 2*d.offSize)
		r, err := d.rdAt(addr, hdrSize)
		if err != nil {
			return fmt.Errorf("B-tree node: %w", err)
		}
		r.sig("TREE")
		r.u8() // node type
		lv := int(r.u8())
		n := uint64(r.u16())
		if r.err != nil {
			return fmt.Errorf("B-tree node: %w", r.err)
		}
		if level >= 0 && lv != level {
			return fmt.Errorf("B-tree node at level %d where level %d was expected", lv, level)
		}
		body := n*uint64(keySize+d.offSize) + uint64(keySize)
		r, err = d.rdAt(addr+hdrSize, body)
		if err != nil {
			return fmt.Errorf("B-tree node: %w", err)
		}
		for i := uint64(0); i < n; i++ {
			key := r.bytes(keySize)
			child := r.addr()
			if r.err != nil {
				return r.err
			}
			if lv == 0 {
				if err := leaf(child, key); err != nil {
					return err
				}
			} else if err := walk(child, lv-1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(addr, -1)
}

// localHeap is an old-style group's heap of link names.
type localHeap struct{ data []byte }

func (d *decoder) localHeap(addr uint64) (*localHeap, error) {
	r, err := d.rdAt(addr, uint64(8+2*d.lenSize+d.offSize))
	if err != nil {
		return nil, fmt.Errorf("local heap: %w", err)
	}
	r.sig("HEAP")
	r.skip(4)
	size := r.length()
	r.length() // free list
	data := r.addr()
	if r.err != nil {
		return nil, fmt.Errorf("local heap: %w", r.err)
	}
	b, err := d.read(data, size)
	if err != nil {
		return nil, fmt.Errorf("local heap data: %w", err)
	}
	return &localHeap{b}, nil
}

func (h *localHeap) str(off uint64) (string, error) {
	if off >= uint64(len(h.data)) {
		return "", fmt.Errorf("name offset %d outside the local heap (%d bytes)", off, len(h.data))
	}
	return cstring(h.data[off:]), nil
}
