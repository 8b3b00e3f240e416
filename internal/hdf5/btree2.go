package hdf5

import (
	"errors"
	"fmt"
	"math/bits"
)

// btree2 calls rec for every record of the version 2 B-tree at addr, in
// key order; typ is the record type the caller expects.
func (d *decoder) btree2(addr uint64, typ byte, rec func([]byte) error) error {
	r, err := d.rdAt(addr, uint64(4+1+1+4+2+2+1+1+d.offSize+2+d.lenSize+4))
	if err != nil {
		return fmt.Errorf("v2 B-tree header: %w", err)
	}
	r.sig("BTHD")
	if v := r.u8(); v != 0 && r.err == nil {
		return fmt.Errorf("v2 B-tree header version %d", v)
	}
	t := r.u8()
	nodeSize := int(r.u32())
	recSize := int(r.u16())
	depth := int(r.u16())
	r.skip(2)
	root := r.addr()
	rootN := int(r.u16())
	r.length()
	r.checksum(0)
	if r.err != nil {
		return fmt.Errorf("v2 B-tree header: %w", r.err)
	}
	if t != typ {
		return fmt.Errorf("v2 B-tree of record type %d where %d was expected", t, typ)
	}
	if root == undef {
		return nil
	}
	if recSize == 0 || nodeSize <= 10+recSize || uint64(nodeSize) > d.size || depth > 64 {
		return fmt.Errorf("v2 B-tree with node size %d, record size %d, depth %d", nodeSize, recSize, depth)
	}
	// Sizes of the child pointers' record counts (HDF5's node_info).
	leafMax := uint64((nodeSize - 10) / recSize)
	nrecSize := encSize(leafMax)
	cum := []uint64{leafMax}
	cumSize := []int{encSize(leafMax)}
	ptrSize := []int{0}
	for u := 1; u <= depth; u++ {
		p := d.offSize + nrecSize
		if u > 1 {
			p += cumSize[u-1]
		}
		if nodeSize < 10+p {
			return errors.New("v2 B-tree node too small for its pointers")
		}
		m := uint64((nodeSize - (10 + p)) / (recSize + p))
		hi, c := bits.Mul64(m+1, cum[u-1])
		c += m
		if hi != 0 || c < m {
			c = ^uint64(0)
		}
		cum = append(cum, c)
		cumSize = append(cumSize, encSize(c))
		ptrSize = append(ptrSize, p)
	}
	seen := map[uint64]bool{}
	var walk func(addr uint64, n, depth int) error
	walk = func(addr uint64, n, depth int) error {
		if seen[addr] {
			return errors.New("v2 B-tree node visited twice (cycle)")
		}
		seen[addr] = true
		b, err := d.readUpTo(addr, uint64(nodeSize))
		if err != nil {
			return fmt.Errorf("v2 B-tree node: %w", err)
		}
		r := d.rd(b)
		if depth == 0 {
			r.sig("BTLF")
		} else {
			r.sig("BTIN")
		}
		r.skip(2)
		recs := r.bytes(n * recSize)
		type child struct {
			addr uint64
			n    int
		}
		var kids []child
		if depth > 0 {
			for i := 0; i <= n && r.err == nil; i++ {
				a := r.addr()
				k := r.un(nrecSize)
				if depth > 1 {
					r.un(cumSize[depth-1])
				}
				kids = append(kids, child{a, int(min(k, 1<<20))})
			}
		}
		r.checksum(0)
		if r.err != nil {
			return fmt.Errorf("v2 B-tree node: %w", r.err)
		}
		for i := 0; i <= n; i++ {
			if depth > 0 {
				if err := walk(kids[i].addr, kids[i].n, depth-1); err != nil {
					return err
				}
			}
			if i < n {
				if err := rec(recs[i*recSize : (i+1)*recSize]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, rootN, depth)
}

// encSize is the bytes HDF5 uses to encode counts up to n.
func encSize(n uint64) int {
	if n == 0 {
		return 1
	}
	return (bits.Len64(n)-1)/8 + 1
}
