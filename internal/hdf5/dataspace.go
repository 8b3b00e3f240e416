package hdf5

import (
	"errors"
	"fmt"
	"math/bits"
)

// dataspace is a decoded dataspace message.
type dataspace struct {
	shape []int    // nil for scalars
	max   []uint64 // maximum dimensions (undef: unlimited); nil when not stored
	n     uint64
	null  bool
}

func (d *decoder) parseDataspace(b []byte) (dataspace, error) {
	r := d.rd(b)
	version := r.u8()
	rank := int(r.u8())
	flags := r.u8()
	var s dataspace
	switch version {
	case 1:
		r.skip(5)
	case 2:
		switch r.u8() {
		case 0:
			rank = 0
		case 1:
		case 2:
			s.null = true
			return s, nil
		default:
			return s, errors.New("dataspace of unknown type")
		}
	default:
		return s, fmt.Errorf("dataspace version %d", version)
	}
	if rank > 32 {
		return s, fmt.Errorf("dataspace of rank %d", rank)
	}
	s.n = 1
	for i := 0; i < rank; i++ {
		dim := r.length()
		if dim > 1<<53 {
			return s, fmt.Errorf("dataspace dimension %d too large", dim)
		}
		hi, lo := bits.Mul64(s.n, dim)
		if hi != 0 || lo > 1<<53 {
			return s, errors.New("dataspace holds too many elements")
		}
		s.n = lo
		s.shape = append(s.shape, int(dim))
	}
	if flags&1 != 0 {
		for i := 0; i < rank; i++ {
			s.max = append(s.max, r.length())
		}
	}
	if r.err != nil {
		return s, fmt.Errorf("dataspace: %w", r.err)
	}
	return s, nil
}
