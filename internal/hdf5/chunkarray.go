package hdf5

import (
	"errors"
	"fmt"
	"math/bits"
)

// chunkEntry receives one chunk address from a chunk index: its linear
// index, address, stored size (filtered indexes) and filter mask.
type chunkEntry func(i uint64, addr, size uint64, mask uint32) error

// element decodes one chunk index element: an address, and for filtered
// datasets a stored size and filter mask.
func (d *decoder) element(b []byte, filtered bool) (addr, size uint64, mask uint32) {
	r := d.rd(b)
	addr = r.addr()
	if filtered {
		n := len(b) - d.offSize - 4
		if n < 1 || n > 8 {
			return undef, 0, 0
		}
		size = r.un(n)
		mask = r.u32()
	}
	if r.err != nil {
		return undef, 0, 0
	}
	return addr, size, mask
}

// fixedArray walks a fixed array chunk index (layout version 4, datasets
// with fixed maximum dimensions).
func (d *decoder) fixedArray(addr uint64, filtered bool, f chunkEntry) error {
	r, err := d.rdAt(addr, uint64(8+d.lenSize+d.offSize+4))
	if err != nil {
		return fmt.Errorf("fixed array header: %w", err)
	}
	r.sig("FAHD")
	r.skip(2)
	esize := int(r.u8())
	pageBits := int(r.u8())
	n := r.length()
	dblk := r.addr()
	r.checksum(0)
	if r.err != nil {
		return fmt.Errorf("fixed array header: %w", r.err)
	}
	if esize < d.offSize || (filtered && esize < d.offSize+5) || pageBits > 32 {
		return fmt.Errorf("fixed array of %d-byte elements, %d page bits", esize, pageBits)
	}
	if n > d.size/uint64(esize) {
		return fmt.Errorf("fixed array of %d elements exceeds the file", n)
	}
	if dblk == undef || n == 0 {
		return nil
	}
	pre := 4 + 2 + d.offSize
	page := uint64(1) << uint(pageBits)
	if n <= page {
		r, err := d.rdAt(dblk, uint64(pre)+n*uint64(esize)+4)
		if err != nil {
			return fmt.Errorf("fixed array data block: %w", err)
		}
		r.sig("FADB")
		r.skip(pre - 4)
		elems := r.bytes(int(n) * esize)
		r.checksum(0)
		if r.err != nil {
			return fmt.Errorf("fixed array data block: %w", r.err)
		}
		for i := uint64(0); i < n; i++ {
			a, s, m := d.element(elems[i*uint64(esize):(i+1)*uint64(esize)], filtered)
			if err := f(i, a, s, m); err != nil {
				return err
			}
		}
		return nil
	}
	npages := (n + page - 1) / page
	bm := int((npages + 7) / 8)
	r, err = d.rdAt(dblk, uint64(pre+bm+4))
	if err != nil {
		return fmt.Errorf("fixed array data block: %w", err)
	}
	r.sig("FADB")
	r.skip(pre - 4)
	bitmap := r.bytes(bm)
	r.checksum(0)
	if r.err != nil {
		return fmt.Errorf("fixed array data block: %w", r.err)
	}
	pos := dblk + uint64(pre+bm+4)
	for p := uint64(0); p < npages; p++ {
		k := min(page, n-p*page)
		size := k*uint64(esize) + 4
		if bitmap[p/8]&(0x80>>(p%8)) != 0 {
			b, err := d.read(pos, size)
			if err != nil {
				return fmt.Errorf("fixed array page: %w", err)
			}
			if !checksumOK(le32(b[len(b)-4:]), b[:len(b)-4]) {
				return errors.New("fixed array page checksum mismatch")
			}
			for i := uint64(0); i < k; i++ {
				a, s, m := d.element(b[i*uint64(esize):(i+1)*uint64(esize)], filtered)
				if err := f(p*page+i, a, s, m); err != nil {
					return err
				}
			}
		}
		pos += size
	}
	return nil
}

// extensibleArray walks an extensible array chunk index (layout version 4,
// datasets with one unlimited dimension).
func (d *decoder) extensibleArray(addr uint64, filtered bool, f chunkEntry) error {
	r, err := d.rdAt(addr, uint64(12+6*d.lenSize+d.offSize+4))
	if err != nil {
		return fmt.Errorf("extensible array header: %w", err)
	}
	r.sig("EAHD")
	r.skip(2)
	esize := int(r.u8())
	maxBits := int(r.u8())
	ibElems := uint64(r.u8())
	dbMin := uint64(r.u8())
	sbMinPtrs := uint64(r.u8())
	pageBits := int(r.u8())
	for i := 0; i < 6; i++ {
		r.length()
	}
	iblock := r.addr()
	r.checksum(0)
	if r.err != nil {
		return fmt.Errorf("extensible array header: %w", r.err)
	}
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	if esize < d.offSize || (filtered && esize < d.offSize+5) || maxBits == 0 || maxBits > 63 ||
		!pow2(dbMin) || !pow2(sbMinPtrs) || pageBits > 32 || bits.Len64(dbMin)-1 > maxBits {
		return errors.New("extensible array with invalid parameters")
	}
	if iblock == undef {
		return nil
	}
	offBytes := (maxBits + 7) / 8
	nsblks := 1 + maxBits - (bits.Len64(dbMin) - 1)
	ibSblks := 2 * (bits.Len64(sbMinPtrs) - 1)
	ndblk := 2 * (sbMinPtrs - 1)
	nsblk := max(0, nsblks-ibSblks)
	type sinfo struct{ ndblks, nelmts, start uint64 }
	info := make([]sinfo, nsblks)
	start := uint64(0)
	for u := range info {
		info[u] = sinfo{1 << uint(u/2), (1 << uint((u+1)/2)) * dbMin, start}
		start += info[u].ndblks * info[u].nelmts
	}
	pre := 4 + 2 + d.offSize
	r, err = d.rdAt(iblock, uint64(pre)+ibElems*uint64(esize)+(ndblk+uint64(nsblk))*uint64(d.offSize)+4)
	if err != nil {
		return fmt.Errorf("extensible array index block: %w", err)
	}
	r.sig("EAIB")
	r.skip(pre - 4)
	elems := r.bytes(int(ibElems) * esize)
	dblks := make([]uint64, ndblk)
	for i := range dblks {
		dblks[i] = r.addr()
	}
	sblks := make([]uint64, nsblk)
	for i := range sblks {
		sblks[i] = r.addr()
	}
	r.checksum(0)
	if r.err != nil {
		return fmt.Errorf("extensible array index block: %w", r.err)
	}
	emit := func(base uint64, b []byte, k uint64) error {
		for i := uint64(0); i < k; i++ {
			a, s, m := d.element(b[i*uint64(esize):(i+1)*uint64(esize)], filtered)
			if err := f(base+i, a, s, m); err != nil {
				return err
			}
		}
		return nil
	}
	if err := emit(0, elems, ibElems); err != nil {
		return err
	}
	page := uint64(1) << uint(pageBits)
	// dataBlock reads one data block of k elements whose first element
	// has index base; paged blocks use the page bitmap bits from bit on.
	dataBlock := func(a, base, k uint64, bitmap []byte, bit uint64) error {
		if a == undef {
			return nil
		}
		hdr := uint64(pre + offBytes)
		if k <= page {
			b, err := d.read(a, hdr+k*uint64(esize)+4)
			if err != nil {
				return fmt.Errorf("extensible array data block: %w", err)
			}
			r := d.rd(b)
			r.sig("EADB")
			r.off = len(b) - 4
			r.checksum(0)
			if r.err != nil {
				return fmt.Errorf("extensible array data block: %w", r.err)
			}
			return emit(ibElems+base, b[hdr:], k)
		}
		pos := a + hdr + 4
		for p := uint64(0); p < k/page; p++ {
			size := page*uint64(esize) + 4
			if bitmap != nil && (bit+p)/8 >= uint64(len(bitmap)) {
				return errors.New("extensible array page bitmap too short")
			}
			if bitmap == nil || bitmap[(bit+p)/8]&(0x80>>((bit+p)%8)) != 0 {
				b, err := d.read(pos, size)
				if err != nil {
					return fmt.Errorf("extensible array page: %w", err)
				}
				if !checksumOK(le32(b[len(b)-4:]), b[:len(b)-4]) {
					return errors.New("extensible array page checksum mismatch")
				}
				if err := emit(ibElems+base+p*page, b, page); err != nil {
					return err
				}
			}
			pos += size
		}
		return nil
	}
	// Data blocks of the first super blocks hang off the index block.
	di := 0
	for u := 0; u < ibSblks && u < nsblks; u++ {
		for j := uint64(0); j < info[u].ndblks && di < len(dblks); j++ {
			if err := dataBlock(dblks[di], info[u].start+j*info[u].nelmts, info[u].nelmts, nil, 0); err != nil {
				return err
			}
			di++
		}
	}
	for i, sa := range sblks {
		u := ibSblks + i
		if sa == undef || u >= nsblks {
			continue
		}
		s := info[u]
		var bm uint64
		if s.nelmts > page {
			hi, pages := bits.Mul64(s.ndblks, s.nelmts/page)
			if hi != 0 || pages > 8*d.size {
				return errors.New("extensible array secondary block too large")
			}
			bm = (pages + 7) / 8
		}
		r, err := d.rdAt(sa, uint64(pre+offBytes)+bm+s.ndblks*uint64(d.offSize)+4)
		if err != nil {
			return fmt.Errorf("extensible array secondary block: %w", err)
		}
		r.sig("EASB")
		r.skip(pre - 4 + offBytes)
		bitmap := r.bytes(int(bm))
		addrs := make([]uint64, s.ndblks)
		for j := range addrs {
			addrs[j] = r.addr()
		}
		r.checksum(0)
		if r.err != nil {
			return fmt.Errorf("extensible array secondary block: %w", r.err)
		}
		for j, a := range addrs {
			if err := dataBlock(a, s.start+uint64(j)*s.nelmts, s.nelmts, bitmap, uint64(j)*(s.nelmts/page)); err != nil {
				return err
			}
		}
	}
	return nil
}
