package hdf5

import (
	"errors"
	"fmt"
)

// links lists the links of a group object, in the order h5py iterates
// them.
func (d *decoder) links(oh *objectHeader) ([]link, error) {
	if m, ok := oh.first(msgSymbolTable); ok {
		r := d.rd(m.data)
		btree, heap := r.addr(), r.addr()
		if r.err != nil {
			return nil, fmt.Errorf("symbol table message: %w", r.err)
		}
		return d.symbolTable(btree, heap)
	}
	var ls []link
	for _, m := range oh.msgs {
		if m.typ != msgLink {
			continue
		}
		l, err := d.parseLink(m.data)
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	if m, ok := oh.first(msgLinkInfo); ok {
		r := d.rd(m.data)
		if v := r.u8(); v != 0 {
			return nil, fmt.Errorf("link info message version %d", v)
		}
		flags := r.u8()
		if flags&1 != 0 {
			r.u64()
		}
		heap, nameIndex := r.addr(), r.addr()
		if r.err != nil {
			return nil, fmt.Errorf("link info message: %w", r.err)
		}
		if heap != undef {
			dense, err := d.denseLinks(heap, nameIndex)
			if err != nil {
				return nil, fmt.Errorf("dense link storage: %w", err)
			}
			ls = append(ls, dense...)
		}
	}
	sortLinks(ls)
	return ls, nil
}

// parseLink decodes a link message.
func (d *decoder) parseLink(b []byte) (link, error) {
	r := d.rd(b)
	if v := r.u8(); v != 1 {
		return link{}, fmt.Errorf("link message version %d", v)
	}
	flags := r.u8()
	l := link{order: -1}
	typ := byte(0)
	if flags&0x08 != 0 {
		typ = r.u8()
	}
	if flags&0x04 != 0 {
		l.order = int64(r.u64() & (1<<62 - 1))
	}
	if flags&0x10 != 0 {
		r.u8() // charset
	}
	n := r.un(1 << (flags & 3))
	if n == 0 || n > uint64(r.left()) {
		return link{}, errors.New("link message with a bad name length")
	}
	l.name = string(r.bytes(int(n)))
	switch typ {
	case 0:
		l.addr = r.addr()
	case 1:
		k := int(r.u16())
		l.soft = string(r.bytes(k))
	case 64:
		k := int(r.u16())
		v := r.bytes(k)
		if len(v) > 1 {
			file := cstring(v[1:])
			obj := ""
			if len(v) > len(file)+2 {
				obj = cstring(v[len(file)+2:])
			}
			l.extern = file + ":" + obj
		} else {
			l.extern = "?"
		}
	default:
		l.other = int(typ)
	}
	if r.err != nil {
		return link{}, fmt.Errorf("link message %q: %w", l.name, r.err)
	}
	return l, nil
}

// symbolTable walks an old-style group: a version 1 B-tree of symbol
// table nodes whose names live in a local heap. Links come out in name
// order.
func (d *decoder) symbolTable(btree, heapAddr uint64) ([]link, error) {
	heap, err := d.localHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	var ls []link
	err = d.btree1(btree, 0, func(child uint64, _ []byte) error {
		r, err := d.rdAt(child, 8)
		if err != nil {
			return fmt.Errorf("symbol table node: %w", err)
		}
		r.sig("SNOD")
		r.skip(2)
		n := uint64(r.u16())
		if r.err != nil {
			return fmt.Errorf("symbol table node: %w", r.err)
		}
		entry := uint64(2*d.offSize + 24)
		r, err = d.rdAt(child+8, n*entry)
		if err != nil {
			return fmt.Errorf("symbol table node: %w", err)
		}
		for i := uint64(0); i < n; i++ {
			nameOff := r.length()
			addr := r.addr()
			cache := r.u32()
			r.skip(4)
			scratch := r.bytes(16)
			if r.err != nil {
				return r.err
			}
			name, err := heap.str(nameOff)
			if err != nil {
				return err
			}
			if name == "" {
				return errors.New("symbol table entry without a name")
			}
			l := link{name: name, order: -1, addr: addr}
			if cache == 2 {
				target, err := heap.str(uint64(le32(scratch)))
				if err != nil {
					return err
				}
				l.soft = target
				if l.soft == "" {
					l.soft = "?"
				}
			}
			ls = append(ls, l)
			if len(ls) > d.lim.MaxObjects {
				return fmt.Errorf("more than Limits.MaxObjects=%d links", d.lim.MaxObjects)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortLinks(ls)
	return ls, nil
}

// denseLinks reads the links of a group in dense storage: link messages
// in a fractal heap, found through the name index (a version 2 B-tree of
// type 5 records: name hash, heap ID).
func (d *decoder) denseLinks(heapAddr, index uint64) ([]link, error) {
	h, err := d.fractalHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	var ls []link
	err = d.btree2(index, 5, func(rec []byte) error {
		if len(rec) < 4 {
			return errors.New("short link name record")
		}
		obj, err := h.get(rec[4:])
		if err != nil {
			return err
		}
		l, err := d.parseLink(obj)
		if err != nil {
			return err
		}
		ls = append(ls, l)
		return d.count()
	})
	return ls, err
}
