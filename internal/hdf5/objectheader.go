package hdf5

import (
	"errors"
	"fmt"
)

// message is one object header message.
type message struct {
	typ   uint16
	flags byte
	order int // creation order (version 2 headers that track it), else -1
	data  []byte
}

// objectHeader is the messages of one object, across all its chunks.
type objectHeader struct {
	version      int
	attrsTracked bool // version 2: attribute creation order tracked
	msgs         []message
}

type objKind int

const (
	kindOther objKind = iota
	kindGroup
	kindDataset
)

func (oh *objectHeader) kind() objKind {
	for _, m := range oh.msgs {
		switch m.typ {
		case msgSymbolTable, msgLinkInfo, msgLink:
			return kindGroup
		case msgLayout:
			return kindDataset
		}
	}
	return kindOther
}

// first returns the first message of type t.
func (oh *objectHeader) first(t uint16) (message, bool) {
	for _, m := range oh.msgs {
		if m.typ == t {
			return m, true
		}
	}
	return message{}, false
}

const maxChunks = 1 << 16

// chunk is an object header continuation block.
type chunk struct{ addr, size uint64 } // continuation chunks of one header

// objectHeader reads the object header at addr (version 1 or 2) with all
// its continuation chunks.
func (d *decoder) objectHeader(addr uint64) (*objectHeader, error) {
	if err := d.count(); err != nil {
		return nil, err
	}
	b, err := d.readUpTo(addr, 16)
	if err != nil {
		return nil, fmt.Errorf("object header: %w", err)
	}
	oh := &objectHeader{}
	var pending []chunk
	seen := map[uint64]bool{addr: true}
	var total uint64 // bytes of all chunks: well-formed chunks do not overlap
	more := func(n uint64) error {
		if total += n; total > d.size {
			return errors.New("object header chunks add up to more than the file")
		}
		return nil
	}
	if len(b) >= 4 && string(b[:4]) == "OHDR" {
		oh.version = 2
		pre, err := d.readUpTo(addr, 4+1+1+16+4+8)
		if err != nil {
			return nil, err
		}
		r := d.rd(pre)
		r.skip(4)
		if v := r.u8(); v != 2 {
			return nil, fmt.Errorf("object header version %d", v)
		}
		flags := r.u8()
		oh.attrsTracked = flags&0x04 != 0
		if flags&0x20 != 0 {
			r.skip(16)
		}
		if flags&0x10 != 0 {
			r.skip(4)
		}
		size := r.un(1 << (flags & 3))
		if r.err != nil {
			return nil, r.err
		}
		start := uint64(r.off)
		if size > d.size {
			return nil, fmt.Errorf("object header chunk of %d bytes exceeds the file", size)
		}
		full, err := d.read(addr, start+size+4)
		if err != nil {
			return nil, fmt.Errorf("object header: %w", err)
		}
		if pending, err = d.v2Messages(oh, full, int(start), flags&0x04 != 0); err != nil {
			return nil, fmt.Errorf("object header at %d: %w", addr, err)
		}
		for i := 0; i < len(pending); i++ {
			c := pending[i]
			if seen[c.addr] || len(seen) > maxChunks {
				return nil, errors.New("object header continuation loops")
			}
			seen[c.addr] = true
			if err := more(c.size); err != nil {
				return nil, err
			}
			cb, err := d.read(c.addr, c.size)
			if err != nil {
				return nil, fmt.Errorf("object header continuation: %w", err)
			}
			if len(cb) < 8 || string(cb[:4]) != "OCHK" {
				return nil, errors.New("object header continuation without OCHK signature")
			}
			more, err := d.v2Messages(oh, cb[:len(cb)-4], 4, flags&0x04 != 0)
			if err != nil {
				return nil, err
			}
			if !checksumOK(le32(cb[len(cb)-4:]), cb[:len(cb)-4]) {
				return nil, errors.New("object header continuation checksum mismatch")
			}
			pending = append(pending, more...)
		}
		return oh, nil
	}
	// Version 1: version, reserved, message count, reference count,
	// header size, padding to 16.
	r := d.rd(b)
	if v := r.u8(); v != 1 {
		return nil, fmt.Errorf("unknown object header version %d at address %d", v, addr)
	}
	oh.version = 1
	r.skip(1)
	nmsgs := int(r.u16())
	r.skip(4)
	size := uint64(r.u32())
	if r.err != nil {
		return nil, r.err
	}
	// As HDF5's check of a header's first chunk: messages need room for
	// at least one message header, and no messages no room.
	if (nmsgs > 0 && size < 8) || (nmsgs == 0 && size > 0) {
		return nil, fmt.Errorf("version 1 object header at address %d declares %d messages in %d bytes", addr, nmsgs, size)
	}
	pending = []chunk{{addr + 16, size}}
	for i := 0; i < len(pending); i++ {
		c := pending[i]
		if i > 0 {
			if seen[c.addr] || len(seen) > maxChunks {
				return nil, errors.New("object header continuation loops")
			}
			seen[c.addr] = true
		}
		if err := more(c.size); err != nil {
			return nil, err
		}
		cb, err := d.read(c.addr, c.size)
		if err != nil {
			return nil, fmt.Errorf("object header: %w", err)
		}
		r := d.rd(cb)
		for r.left() >= 8 && len(oh.msgs) < nmsgs+maxChunks {
			typ := r.u16()
			n := int(r.u16())
			fl := r.u8()
			r.skip(3)
			data := r.bytes(n)
			if r.err != nil {
				return nil, fmt.Errorf("object header message type %#x: %w", typ, r.err)
			}
			r.skip(int(align8(uint64(r.off))) - r.off)
			r.err = nil
			if typ == msgContinuation {
				cr := d.rd(data)
				ca, cs := cr.addr(), cr.length()
				if cr.err != nil {
					return nil, cr.err
				}
				pending = append(pending, chunk{ca, cs})
				continue
			}
			if err := checkUnknown(typ, fl); err != nil {
				return nil, err
			}
			oh.msgs = append(oh.msgs, message{typ: typ, flags: fl, order: -1, data: data})
		}
	}
	return oh, nil
}

// v2Messages parses the messages of a version 2 chunk b[start:len(b)-4]
// and returns the continuation chunks it names. The chunk's checksum (the
// last 4 bytes of the first chunk) is checked here for the first chunk.
func (d *decoder) v2Messages(oh *objectHeader, b []byte, start int, tracked bool) ([]chunk, error) {
	var conts []chunk
	end := len(b)
	if string(b[:4]) == "OHDR" {
		end -= 4
		if !checksumOK(le32(b[end:]), b[:end]) {
			return nil, errors.New("checksum mismatch")
		}
	}
	hdr := 4
	if tracked {
		hdr = 6
	}
	r := d.rd(b[:end])
	r.off = start
	for r.left() >= hdr {
		typ := uint16(r.u8())
		n := int(r.u16())
		fl := r.u8()
		order := -1
		if tracked {
			order = int(r.u16())
		}
		data := r.bytes(n)
		if r.err != nil {
			return nil, fmt.Errorf("message type %#x: %w", typ, r.err)
		}
		if typ == msgContinuation {
			cr := d.rd(data)
			ca, cs := cr.addr(), cr.length()
			if cr.err != nil {
				return nil, cr.err
			}
			conts = append(conts, chunk{ca, cs})
			continue
		}
		if err := checkUnknown(typ, fl); err != nil {
			return nil, err
		}
		oh.msgs = append(oh.msgs, message{typ: typ, flags: fl, order: order, data: data})
	}
	return conts, nil
}

// checkUnknown refuses a message this package does not understand when
// the file says it must be understood (flag bit 7, "fail if unknown").
func checkUnknown(typ uint16, flags byte) error {
	if flags&0x80 == 0 {
		return nil
	}
	switch typ {
	case msgNIL, msgDataspace, msgLinkInfo, msgDatatype, msgFillOld, msgFill, msgLink,
		msgExternal, msgLayout, msgGroupInfo, msgFilters, msgAttribute, msgSymbolTable, msgAttrInfo:
		return nil
	}
	return fmt.Errorf("object header message type %#x must be understood and is not supported", typ)
}
