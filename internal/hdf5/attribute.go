package hdf5

import (
	"errors"
	"fmt"
	"sort"
)

// attributes decodes an object's attributes, compact (attribute messages)
// and dense (fractal heap named by the attribute info message), in h5py's
// order: creation order when the header tracks it, else name order.
func (d *decoder) attributes(path string, oh *objectHeader) ([]Attr, error) {
	type ord struct {
		a     Attr
		order int
	}
	var all []ord
	for _, m := range oh.msgs {
		if m.typ != msgAttribute {
			continue
		}
		a, err := d.attribute(m.data)
		if err != nil {
			return nil, err
		}
		all = append(all, ord{a, m.order})
	}
	if m, ok := oh.first(msgAttrInfo); ok {
		r := d.rd(m.data)
		if v := r.u8(); v != 0 {
			return nil, fmt.Errorf("attribute info message version %d", v)
		}
		if flags := r.u8(); flags&1 != 0 {
			r.u16()
		}
		heap, index := r.addr(), r.addr()
		if r.err != nil {
			return nil, fmt.Errorf("attribute info message: %w", r.err)
		}
		if heap != undef && index != undef {
			h, err := d.fractalHeap(heap)
			if err != nil {
				return nil, fmt.Errorf("dense attributes: %w", err)
			}
			err = d.btree2(index, 8, func(rec []byte) error {
				if len(rec) < 13 {
					return errors.New("short attribute name record")
				}
				if rec[8]&0x02 != 0 {
					return errors.New("shared attribute messages are not supported")
				}
				obj, err := h.get(rec[:8])
				if err != nil {
					return err
				}
				a, err := d.attribute(obj)
				if err != nil {
					return err
				}
				all = append(all, ord{a, int(le32(rec[9:]))})
				return d.count()
			})
			if err != nil {
				return nil, fmt.Errorf("dense attributes: %w", err)
			}
		}
	}
	if oh.attrsTracked {
		sort.SliceStable(all, func(i, j int) bool { return all[i].order < all[j].order })
	} else {
		sort.SliceStable(all, func(i, j int) bool { return all[i].a.Name < all[j].a.Name })
	}
	if len(all) == 0 {
		return nil, nil
	}
	out := make([]Attr, len(all))
	for i, o := range all {
		out[i] = o.a
	}
	return out, nil
}

// attribute decodes one attribute message (versions 1 to 3).
func (d *decoder) attribute(b []byte) (Attr, error) {
	if err := d.count(); err != nil {
		return Attr{}, err
	}
	r := d.rd(b)
	version := r.u8()
	flags := r.u8()
	nameLen := int(r.u16())
	dtLen := int(r.u16())
	dsLen := int(r.u16())
	pad := func(n int) int { return n }
	switch version {
	case 1:
		pad = func(n int) int { return (n + 7) &^ 7 }
	case 2:
	case 3:
		r.u8() // name charset
	default:
		return Attr{}, fmt.Errorf("attribute message version %d", version)
	}
	if flags&3 != 0 {
		return Attr{}, errors.New("attributes with shared datatypes or dataspaces are not supported")
	}
	name := cstring(r.bytes(pad(nameLen)))
	dtb := r.bytes(pad(dtLen))
	dsb := r.bytes(pad(dsLen))
	if r.err != nil {
		return Attr{}, fmt.Errorf("attribute message: %w", r.err)
	}
	fail := func(err error) (Attr, error) { return Attr{}, fmt.Errorf("attribute %q: %w", name, err) }
	t, _, err := parseDatatype(dtb, 0)
	if err != nil {
		return fail(err)
	}
	ds, err := d.parseDataspace(dsb)
	if err != nil {
		return fail(err)
	}
	a := Attr{Name: name, Shape: ds.shape, FixedStrings: t.class == 3}
	if ds.null {
		a.Shape = []int{0}
		a.Value = emptyValue(t)
		return a, nil
	}
	a.Value, err = d.values(t, ds.n, b[min(r.off, len(b)):])
	if err != nil {
		return fail(err)
	}
	return a, nil
}

// values decodes n elements of type t stored in raw (at least n*t.size
// bytes), charging the budget for the Value.
func (d *decoder) values(t dtype, n uint64, raw []byte) (any, error) {
	if n > uint64(len(raw))/uint64(max(t.size, 1)) {
		return nil, fmt.Errorf("%d elements of %d bytes do not fit in %d bytes", n, t.size, len(raw))
	}
	if err := d.charge(n * t.goSize()); err != nil {
		return nil, err
	}
	if t.vlenStr {
		return d.vlenStrings(raw, int(n))
	}
	return decodeFixed(t, raw, int(n))
}
