package hdf5

import (
	"errors"
	"fmt"
)

// superblock finds and parses the superblock (versions 0 to 3) and
// returns the root group's object header address.
func (d *decoder) superblock() (uint64, error) {
	// The superblock sits at 0 or after a user block of 512, 1024, ... bytes.
	var at uint64
	for at = 0; ; at = max(512, 2*at) {
		if at+8 > d.size {
			return 0, errors.New("no HDF5 signature (not an HDF5 file)")
		}
		b, err := d.read(at, 8)
		if err != nil {
			return 0, err
		}
		if string(b) == signature {
			break
		}
	}
	b, err := d.readUpTo(at, 256)
	if err != nil {
		return 0, err
	}
	r := &rd{b: b, off: 8}
	version := r.u8()
	switch version {
	case 0, 1:
		r.skip(4) // free-space, root table entry, reserved, shared header versions
		r.offSize, r.lenSize = int(r.u8()), int(r.u8())
		if err := d.sizes(r); err != nil {
			return 0, err
		}
		r.skip(1 + 2 + 2 + 4) // reserved, leaf K, internal K, flags
		if version == 1 {
			r.skip(4) // indexed storage K, reserved
		}
		base := r.addr()
		r.addr() // free-space info
		r.addr() // end of file
		r.addr() // driver info
		// Root group symbol table entry: link name offset, header address.
		r.addr()
		root := r.addr()
		if r.err != nil {
			return 0, r.err
		}
		// The rest of the root's entry: cache type, reserved, scratch pad.
		d.sbLo, d.sbHi = at, at+uint64(r.off)+4+4+16
		return root, d.setBase(base, at)
	case 2, 3:
		r.offSize, r.lenSize = int(r.u8()), int(r.u8())
		if err := d.sizes(r); err != nil {
			return 0, err
		}
		r.u8() // flags
		base := r.addr()
		r.addr() // superblock extension
		r.addr() // end of file
		root := r.addr()
		r.checksum(0)
		if r.err != nil {
			return 0, r.err
		}
		d.sbLo, d.sbHi = at, at+uint64(r.off)
		return root, d.setBase(base, at)
	}
	return 0, fmt.Errorf("unsupported superblock version %d", version)
}

func (d *decoder) sizes(r *rd) error {
	if r.err != nil {
		return r.err
	}
	ok := func(n int) bool { return n == 2 || n == 4 || n == 8 }
	if !ok(r.offSize) || !ok(r.lenSize) {
		return fmt.Errorf("unsupported sizes of offsets %d / lengths %d", r.offSize, r.lenSize)
	}
	d.offSize, d.lenSize = r.offSize, r.lenSize
	return nil
}

func (d *decoder) setBase(base, sigAt uint64) error {
	if base == undef || base > d.size {
		return fmt.Errorf("base address %d beyond the file", base)
	}
	// Writers set the base to the superblock's position (the user block
	// size); addresses are relative to it.
	d.base = base
	if base != sigAt && base != 0 {
		d.base = sigAt
	}
	return nil
}
