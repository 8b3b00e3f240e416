package hdf5

import (
	"errors"
	"fmt"
	"math/bits"
)

// layout is a decoded data layout message.
type layout struct {
	class   int // 0 compact, 1 contiguous, 2 chunked, 3 virtual
	addr    uint64
	size    uint64
	compact []byte
	chunk   []uint64 // chunk dimensions, dataset rank
	// Version 4 chunk index: 1 single chunk, 2 implicit, 3 fixed array,
	// 4 extensible array, 5 version 2 B-tree; 0 is the version 1 B-tree
	// of older layouts.
	index        int
	singleSize   uint64
	singleMask   uint32
	singleFilter bool
	noEdgeFilter bool
}

func (d *decoder) parseLayout(b []byte, rank int) (layout, error) {
	r := d.rd(b)
	version := r.u8()
	var l layout
	switch version {
	case 1, 2:
		n := int(r.u8())
		l.class = int(r.u8())
		r.skip(5)
		if l.class != 0 {
			l.addr = r.addr()
		}
		var dims []uint64
		for i := 0; i < n; i++ {
			dims = append(dims, uint64(r.u32()))
		}
		switch l.class {
		case 0:
			k := int(r.u32())
			l.compact = r.bytes(k)
		case 1:
			l.size = ^uint64(0) >> 1
		case 2:
			r.u32() // element size
			if n < rank {
				return l, errors.New("chunked layout with fewer dimensions than the dataspace")
			}
			l.chunk = dims[:rank]
		}
	case 3, 4, 5:
		// Version 5 (HDF5 2.0, libver "latest") is version 4's layout; its
		// chunk indexes store filtered chunk sizes in fields of
		// sizeof(size) bytes, which the index readers take from the
		// element sizes their headers give.
		l.class = int(r.u8())
		switch l.class {
		case 0:
			k := int(r.u16())
			l.compact = r.bytes(k)
		case 1:
			l.addr = r.addr()
			l.size = r.length()
		case 2:
			var flags byte
			if version >= 4 {
				flags = r.u8()
				l.noEdgeFilter = flags&1 != 0
				l.singleFilter = flags&2 != 0
			}
			n := int(r.u8())
			enc := 4
			if version == 3 {
				l.addr = r.addr()
			} else { // 4 and 5
				enc = int(r.u8())
				if enc < 1 || enc > 8 {
					return l, fmt.Errorf("chunk dimension size of %d bytes", enc)
				}
			}
			if n != rank+1 {
				return l, fmt.Errorf("chunked layout of %d dimensions for a dataspace of rank %d", n, rank)
			}
			for i := 0; i < n; i++ {
				c := r.un(enc)
				if i < rank {
					l.chunk = append(l.chunk, c)
				}
			}
			if version >= 4 {
				l.index = int(r.u8())
				switch l.index {
				case 1:
					if l.singleFilter {
						l.singleSize = r.length()
						l.singleMask = r.u32()
					}
				case 2:
				case 3:
					r.skip(1)
				case 4:
					r.skip(5)
				case 5:
					r.skip(6)
				default:
					return l, fmt.Errorf("unknown chunk index type %d", l.index)
				}
				l.addr = r.addr()
			}
		case 3:
			return l, errors.New("virtual datasets are not allowed")
		default:
			return l, fmt.Errorf("unknown layout class %d", l.class)
		}
	default:
		return l, fmt.Errorf("layout message version %d", version)
	}
	if r.err != nil {
		return l, fmt.Errorf("layout message: %w", r.err)
	}
	return l, nil
}

// chunked fills raw (the dataset's bytes, preset to the fill value) from
// its chunks.
func (d *decoder) chunked(l layout, space dataspace, t dtype, fs []filter, raw []byte) error {
	rank := len(space.shape)
	if rank == 0 || len(l.chunk) != rank {
		return errors.New("chunked layout for a scalar dataspace")
	}
	elems := uint64(1)
	grid := make([]uint64, rank)    // chunks per dimension now
	maxGrid := make([]uint64, rank) // chunks per dimension at the maximum dims
	for i, c := range l.chunk {
		if c == 0 || c > 1<<32 {
			return fmt.Errorf("chunk dimension %d", c)
		}
		hi, lo := bits.Mul64(elems, c)
		if hi != 0 || lo > 1<<40 {
			return errors.New("chunk too large")
		}
		elems = lo
		grid[i] = (uint64(space.shape[i]) + c - 1) / c
		m := uint64(space.shape[i])
		if i < len(space.max) && space.max[i] != undef && space.max[i] >= m {
			m = space.max[i]
		}
		maxGrid[i] = (m + c - 1) / c
	}
	chunkBytes := elems * uint64(t.size)
	if chunkBytes > uint64(d.budget) {
		return fmt.Errorf("chunk of %d bytes exceeds the decoding limit", chunkBytes)
	}
	if len(raw) == 0 || l.addr == undef {
		// No chunk index: no chunk was ever written, and the dataset
		// reads as its fill value (raw is preset to it), as in h5py.
		return nil
	}
	done := map[uint64]bool{} // chunks placed, by linear index in grid
	place := func(addr, stored uint64, mask uint32, scaled []uint64) error {
		if addr == undef || addr == 0 {
			return nil
		}
		edge := false
		for i := range scaled {
			if scaled[i] >= grid[i] {
				return nil // a chunk left outside after the dataset shrank
			}
			if (scaled[i]+1)*l.chunk[i] > uint64(space.shape[i]) {
				edge = true
			}
		}
		// An index naming a chunk twice would make us inflate it again
		// and again: work the file did not pay for.
		k := linear(scaled, grid)
		if done[k] {
			return fmt.Errorf("chunk %v listed twice by the chunk index", scaled)
		}
		done[k] = true
		var b []byte
		var err error
		if len(fs) == 0 || (edge && l.noEdgeFilter) {
			b, err = d.read(addr, chunkBytes)
		} else {
			if stored > d.size {
				return fmt.Errorf("chunk of %d stored bytes exceeds the file", stored)
			}
			if chunkBytes > d.inflateLeft {
				return fmt.Errorf("chunks inflate to more than twice Limits.MaxBytes (%d)", d.lim.MaxBytes)
			}
			d.inflateLeft -= chunkBytes
			b, err = d.read(addr, stored)
			if err == nil {
				b, err = unfilter(fs, mask, b, int(chunkBytes), t.size)
			}
		}
		if err != nil {
			return fmt.Errorf("chunk %v: %w", scaled, err)
		}
		if uint64(len(b)) != chunkBytes {
			return fmt.Errorf("chunk %v holds %d bytes, want %d", scaled, len(b), chunkBytes)
		}
		copyChunk(raw, space.shape, b, l.chunk, scaled, t.size)
		return nil
	}
	switch l.index {
	case 0:
		keySize := 8 + 8*(rank+1)
		return d.btree1(l.addr, keySize, func(child uint64, key []byte) error {
			scaled := make([]uint64, rank)
			for i := range scaled {
				off := le64(key[8+8*i:])
				if off%l.chunk[i] != 0 {
					return errors.New("chunk offset not on a chunk boundary")
				}
				scaled[i] = off / l.chunk[i]
			}
			return place(child, uint64(le32(key)), le32(key[4:]), scaled)
		})
	case 1:
		stored := chunkBytes
		if l.singleFilter {
			stored = l.singleSize
		}
		return place(l.addr, stored, l.singleMask, make([]uint64, rank))
	case 2:
		if l.addr == undef {
			return nil
		}
		return eachChunk(grid, func(scaled []uint64) error {
			i := linear(scaled, maxGrid)
			hi, off := bits.Mul64(i, chunkBytes)
			if hi != 0 || off > d.size {
				return errors.New("implicit chunk beyond the file")
			}
			return place(l.addr+off, chunkBytes, 0, scaled)
		})
	case 3:
		return d.fixedArray(l.addr, len(fs) > 0, func(i uint64, addr, size uint64, mask uint32) error {
			return place(addr, size, mask, unlinear(i, maxGrid))
		})
	case 4:
		// The extensible array indexes chunks row-major with the unlimited
		// dimension moved first.
		unlim := 0
		for i, m := range space.max {
			if m == undef {
				unlim = i
				break
			}
		}
		sw := append([]uint64{1 << 62}, maxGrid[:unlim]...)
		sw = append(sw, maxGrid[unlim+1:]...)
		return d.extensibleArray(l.addr, len(fs) > 0, func(i uint64, addr, size uint64, mask uint32) error {
			s := unlinear(i, sw)
			scaled := append(append(append([]uint64(nil), s[1:unlim+1]...), s[0]), s[unlim+1:]...)
			return place(addr, size, mask, scaled)
		})
	case 5:
		typ := byte(10)
		if len(fs) > 0 {
			typ = 11
		}
		return d.btree2(l.addr, typ, func(rec []byte) error {
			r := d.rd(rec)
			addr := r.addr()
			stored, mask := chunkBytes, uint32(0)
			if typ == 11 {
				n := len(rec) - d.offSize - 4 - 8*rank
				if n <= 0 || n > 8 {
					return errors.New("bad filtered chunk record")
				}
				stored = r.un(n)
				mask = r.u32()
			}
			scaled := make([]uint64, rank)
			for i := range scaled {
				scaled[i] = r.u64()
			}
			if r.err != nil {
				return r.err
			}
			return place(addr, stored, mask, scaled)
		})
	}
	return fmt.Errorf("unsupported chunk index type %d", l.index)
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

// linear is the row-major index of scaled chunk coordinates in grid.
func linear(scaled, grid []uint64) uint64 {
	var i uint64
	for k := range scaled {
		i = i*grid[k] + scaled[k]
	}
	return i
}

// unlinear inverts linear.
func unlinear(i uint64, grid []uint64) []uint64 {
	s := make([]uint64, len(grid))
	for k := len(grid) - 1; k >= 0; k-- {
		if grid[k] == 0 {
			return s
		}
		s[k] = i % grid[k]
		i /= grid[k]
	}
	if i != 0 {
		s[0] = ^uint64(0) // out of range: dropped by the caller
	}
	return s
}

// eachChunk calls f for every chunk coordinate of grid, row-major.
func eachChunk(grid []uint64, f func([]uint64) error) error {
	s := make([]uint64, len(grid))
	for _, g := range grid {
		if g == 0 {
			return nil
		}
	}
	for {
		if err := f(append([]uint64(nil), s...)); err != nil {
			return err
		}
		k := len(s) - 1
		for ; k >= 0; k-- {
			s[k]++
			if s[k] < grid[k] {
				break
			}
			s[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// copyChunk copies the part of a chunk (at scaled coordinates) that lies
// inside the dataset of the given shape into dst.
func copyChunk(dst []byte, shape []int, src []byte, chunk, scaled []uint64, es int) {
	rank := len(shape)
	start := make([]int, rank)
	ext := make([]int, rank)
	for k := range shape {
		start[k] = int(scaled[k] * chunk[k])
		ext[k] = min(int(chunk[k]), shape[k]-start[k])
		if ext[k] <= 0 {
			return
		}
	}
	idx := make([]int, rank)
	row := ext[rank-1] * es
	for {
		so, do := 0, 0
		for k := 0; k < rank; k++ {
			so = so*int(chunk[k]) + idx[k]
			do = do*shape[k] + start[k] + idx[k]
		}
		copy(dst[do*es:do*es+row], src[so*es:])
		k := rank - 2
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < ext[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}
