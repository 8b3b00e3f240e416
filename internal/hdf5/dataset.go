package hdf5

import (
	"errors"
	"fmt"
	"math/bits"
)

// dataset decodes a dataset object: dataspace, datatype, fill value,
// filters and layout, then its whole value.
func (d *decoder) dataset(path string, oh *objectHeader) (*Dataset, error) {
	ds := &Dataset{Name: baseName(path)}
	var err error
	if ds.Attrs, err = d.attributes(path, oh); err != nil {
		return nil, err
	}
	if _, ok := oh.first(msgExternal); ok {
		return nil, errors.New("dataset with external storage (data in other files) is not allowed")
	}
	sm, ok := oh.first(msgDataspace)
	if !ok {
		return nil, errors.New("dataset without a dataspace message")
	}
	space, err := d.parseDataspace(sm.data)
	if err != nil {
		return nil, err
	}
	tm, ok := oh.first(msgDatatype)
	if !ok {
		return nil, errors.New("dataset without a datatype message")
	}
	tb := tm.data
	if tm.flags&2 != 0 {
		if tb, err = d.sharedDatatype(tm.data); err != nil {
			return nil, err
		}
	}
	t, _, err := parseDatatype(tb, 0)
	if err != nil {
		return nil, err
	}
	if a, ok := ds.Attr("dtype"); ok && t.opaque && t.size == 2 {
		// Keras 3 stores bfloat16 variables as 2-byte opaque data with
		// the attribute dtype="bfloat16"; they decode to float32.
		if s, ok := a.Value.([]string); ok && len(s) == 1 && s[0] == "bfloat16" {
			t.bf16 = true
		}
	}
	ds.Shape = space.shape
	ds.FixedStrings = t.class == 3
	if space.null {
		ds.Shape = []int{0}
		ds.Value = emptyValue(t)
		return ds, nil
	}
	lm, ok := oh.first(msgLayout)
	if !ok {
		return nil, errors.New("dataset without a layout message")
	}
	lay, err := d.parseLayout(lm.data, len(space.shape))
	if err != nil {
		return nil, err
	}
	var fs []filter
	if fm, ok := oh.first(msgFilters); ok {
		if fs, err = d.parseFilters(fm.data); err != nil {
			return nil, err
		}
	}
	hi, total := bits.Mul64(space.n, uint64(t.size))
	if hi != 0 || total > 1<<62 {
		return nil, errors.New("dataset too large")
	}
	src := &deferred{d: d, t: t, n: space.n, space: space, lay: lay, fs: fs, fill: d.fillValue(oh, t), total: total}
	if d.lim.DeferBytes > 0 && total >= uint64(d.lim.DeferBytes) && (t.class == 1 || t.bf16) && lay.class != 3 {
		// Left in the file (deferred.go): checked now as far as it can
		// be without reading it.
		if err := src.checkSpan(); err != nil {
			return nil, err
		}
		ds.src = src
		return ds, nil
	}
	if err := d.charge(total); err != nil {
		return nil, err
	}
	raw := make([]byte, total)
	if err := src.readRaw(raw); err != nil {
		return nil, err
	}
	d.budget += int64(total) // the raw bytes are freed once decoded
	ds.Value, err = d.values(t, space.n, raw)
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// sharedDatatype follows a shared datatype message to the committed
// datatype's object header.
func (d *decoder) sharedDatatype(b []byte) ([]byte, error) {
	r := d.rd(b)
	version := r.u8()
	typ := r.u8()
	switch {
	case version == 1:
		r.skip(6)
	case version == 2:
	case version == 3 && typ == 2:
	default:
		return nil, errors.New("datatypes shared through the shared message heap are not supported")
	}
	addr := r.addr()
	if r.err != nil {
		return nil, fmt.Errorf("shared datatype: %w", r.err)
	}
	if d.onPath[addr] {
		return nil, errors.New("shared datatype refers to itself")
	}
	d.onPath[addr] = true
	defer delete(d.onPath, addr)
	oh, err := d.objectHeader(addr)
	if err != nil {
		return nil, fmt.Errorf("committed datatype: %w", err)
	}
	m, ok := oh.first(msgDatatype)
	if !ok {
		return nil, errors.New("committed datatype without a datatype message")
	}
	if m.flags&2 != 0 {
		return nil, errors.New("committed datatype is itself shared")
	}
	return m.data, nil
}

// fillValue is the element that unwritten data reads as, or nil for
// zeros.
func (d *decoder) fillValue(oh *objectHeader, t dtype) []byte {
	if t.vlenStr {
		return nil
	}
	var val []byte
	if m, ok := oh.first(msgFill); ok {
		r := d.rd(m.data)
		switch v := r.u8(); v {
		case 1, 2:
			r.skip(2)
			defined := r.u8()
			if v == 1 || defined != 0 {
				n := int(r.u32())
				val = r.bytes(n)
			}
		case 3:
			if r.u8()&0x20 != 0 {
				n := int(r.u32())
				val = r.bytes(n)
			}
		}
		if r.err != nil {
			val = nil
		}
	} else if m, ok := oh.first(msgFillOld); ok {
		r := d.rd(m.data)
		n := int(r.u32())
		val = r.bytes(n)
	}
	if len(val) != t.size {
		return nil
	}
	return val
}
