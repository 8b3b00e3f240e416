package hdf5

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Encode writes root as a complete HDF5 file to w.
//
// The file has a version 2 superblock, version 2 object headers and
// new-style groups that track link creation order, so readers (h5py,
// HDF5 1.8 and later, this package) see children in the order given
// (a group's Groups, then its Datasets). Attributes are listed by name,
// as h5py and [Decode] iterate them.
// Datasets are contiguous and uncompressed. Numbers are little-endian;
// []string values are variable-length UTF-8 unless FixedStrings is set,
// []bool is h5py's enum bool.
func Encode(w io.Writer, root *Group) error {
	if root == nil {
		return fmt.Errorf("hdf5: encode: nil root group")
	}
	e := &encoder{}
	if err := e.collect(root, "/"); err != nil {
		return err
	}
	// Pass 1 sizes every object with placeholder addresses; pass 2
	// encodes them at their final addresses (all address fields have a
	// fixed width, so sizes do not change).
	for pass := 0; pass < 2; pass++ {
		if err := e.encodeAll(); err != nil {
			return err
		}
		e.assign()
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.Write(e.meta); err != nil {
		return fmt.Errorf("hdf5: encode: %w", err)
	}
	pos := uint64(len(e.meta))
	for _, d := range e.data {
		for ; pos < d.addr; pos++ {
			if err := bw.WriteByte(0); err != nil {
				return fmt.Errorf("hdf5: encode: %w", err)
			}
		}
		if err := writeRaw(bw, d); err != nil {
			return fmt.Errorf("hdf5: encode: %w", err)
		}
		pos += d.size
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("hdf5: encode: %w", err)
	}
	return nil
}

// WriteFile writes root to path through a temporary file in the same
// directory renamed over path once complete, so a failed write leaves any
// previous file intact.
func WriteFile(path string, root *Group) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("hdf5: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("hdf5: %w", err)
	}
	if err = Encode(f, root); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("hdf5: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("hdf5: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("hdf5: %w", err)
	}
	return nil
}

// wobj is one object header to write.
type wobj struct {
	path  string
	group *Group
	dset  *Dataset
	kids  []int // indices into encoder.objs, in link order (groups)
	names []string
	addr  uint64
	hdr   []byte
	data  *wdata // contiguous raw data (datasets)
}

// wdata is one dataset's raw data, written after all metadata.
type wdata struct {
	value any
	fixed int // fixed string size, 0 if not fixed strings
	vlen  []byte
	addr  uint64
	size  uint64
}

type encoder struct {
	objs  []*wobj
	data  []*wdata
	heaps []*gheap
	meta  []byte // superblock, object headers and global heaps
	heapN int    // heaps used in the current pass
}

const superblockSize = 48

// collect lists every object depth-first (root first) and checks names,
// values and shapes.
func (e *encoder) collect(g *Group, path string) error {
	idx := len(e.objs)
	o := &wobj{path: path, group: g}
	e.objs = append(e.objs, o)
	seen := map[string]bool{}
	child := func(name string) (string, error) {
		if err := checkName(name); err != nil {
			return "", fmt.Errorf("hdf5: %s: %w", path, err)
		}
		if seen[name] {
			return "", fmt.Errorf("hdf5: %s: duplicate child name %q", path, name)
		}
		seen[name] = true
		return joinPath(path, name), nil
	}
	if err := checkAttrs(g.Attrs, path); err != nil {
		return err
	}
	for _, c := range g.Groups {
		if c == nil {
			return fmt.Errorf("hdf5: %s: nil child group", path)
		}
		p, err := child(c.Name)
		if err != nil {
			return err
		}
		e.objs[idx].kids = append(e.objs[idx].kids, len(e.objs))
		e.objs[idx].names = append(e.objs[idx].names, c.Name)
		if err := e.collect(c, p); err != nil {
			return err
		}
	}
	for _, d := range g.Datasets {
		if d == nil {
			return fmt.Errorf("hdf5: %s: nil child dataset", path)
		}
		p, err := child(d.Name)
		if err != nil {
			return err
		}
		n, err := valueLen(d.Value)
		if err != nil {
			return fmt.Errorf("hdf5: %s: %w", p, err)
		}
		if _, err := shapeOf(d.Shape, n); err != nil {
			return fmt.Errorf("hdf5: %s: %w", p, err)
		}
		if err := checkAttrs(d.Attrs, p); err != nil {
			return err
		}
		e.objs[idx].kids = append(e.objs[idx].kids, len(e.objs))
		e.objs[idx].names = append(e.objs[idx].names, d.Name)
		wd := &wdata{value: d.Value}
		if s, ok := d.Value.([]string); ok && d.FixedStrings {
			wd.fixed = fixedStrLen(s)
		}
		e.objs = append(e.objs, &wobj{path: p, dset: d, data: wd})
		e.data = append(e.data, wd)
	}
	return nil
}

func checkAttrs(as []Attr, path string) error {
	seen := map[string]bool{}
	for _, a := range as {
		if a.Name == "" || seen[a.Name] {
			return fmt.Errorf("hdf5: %s: empty or duplicate attribute name %q", path, a.Name)
		}
		seen[a.Name] = true
		n, err := valueLen(a.Value)
		if err == nil {
			_, err = shapeOf(a.Shape, n)
		}
		if err != nil {
			return fmt.Errorf("hdf5: %s: attribute %q: %w", path, a.Name, err)
		}
	}
	return nil
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// encodeAll builds every object header (and the global heaps) at the
// addresses currently assigned.
func (e *encoder) encodeAll() error {
	for _, h := range e.heaps {
		h.reset()
	}
	e.heapN = 0
	for _, o := range e.objs {
		var msgs []wmsg
		attrs := []Attr(nil)
		if o.group != nil {
			attrs = o.group.Attrs
			msgs = append(msgs, wmsg{msgLinkInfo, 0, encodeLinkInfo(len(o.kids))},
				wmsg{msgGroupInfo, 0, []byte{0, 0}})
			for i, k := range o.kids {
				msgs = append(msgs, wmsg{msgLink, 0, encodeLink(o.names[i], uint64(i), e.objs[k].addr)})
			}
		} else {
			d := o.dset
			attrs = d.Attrs
			n, _ := valueLen(d.Value)
			shape, _ := shapeOf(d.Shape, n)
			dt, err := encodeDatatype(d.Value, d.FixedStrings)
			if err != nil {
				return fmt.Errorf("hdf5: %s: %w", o.path, err)
			}
			wd := o.data
			switch s, _ := d.Value.([]string); {
			case s == nil:
				wd.size = uint64(n * elemSize(d.Value))
			case wd.fixed > 0:
				wd.size = uint64(n * wd.fixed)
			default:
				wd.vlen = e.vlenDescriptors(s)
				wd.size = uint64(len(wd.vlen))
			}
			addr := wd.addr
			if wd.size == 0 {
				addr = undef
			}
			var lay buf
			lay.bytes([]byte{3, 1})
			lay.u64(addr)
			lay.u64(wd.size)
			msgs = append(msgs, wmsg{msgDataspace, 0, encodeDataspace(shape)},
				wmsg{msgDatatype, 1, dt},
				// Fill value v3: allocation late, write if set, undefined by default.
				wmsg{msgFill, 1, []byte{3, 0x0a}},
				wmsg{msgLayout, 0, lay})
		}
		for _, a := range attrs {
			m, err := e.attrMessage(a)
			if err != nil {
				return fmt.Errorf("hdf5: %s: attribute %q: %w", o.path, a.Name, err)
			}
			msgs = append(msgs, wmsg{msgAttribute, 0, m})
		}
		h, err := encodeObjectHeader(msgs)
		if err != nil {
			return fmt.Errorf("hdf5: %s: %w", o.path, err)
		}
		o.hdr = h
	}
	return nil
}

func (e *encoder) attrMessage(a Attr) ([]byte, error) {
	n, _ := valueLen(a.Value)
	shape, _ := shapeOf(a.Shape, n)
	dt, err := encodeDatatype(a.Value, a.FixedStrings)
	if err != nil {
		return nil, err
	}
	var data []byte
	switch s, _ := a.Value.([]string); {
	case s == nil:
		data = make([]byte, n*elemSize(a.Value))
		putElems(data, a.Value, 0, n)
	case a.FixedStrings:
		data = fixedStrings(s, fixedStrLen(s))
	default:
		data = e.vlenDescriptors(s)
	}
	m := encodeAttribute(a.Name, dt, encodeDataspace(shape), data)
	if len(m) > 0xffff-8 {
		return nil, fmt.Errorf("attribute of %d bytes exceeds HDF5's 64 KiB object header message (split it, as Keras does)", len(m))
	}
	return m, nil
}

func fixedStrings(s []string, size int) []byte {
	out := make([]byte, len(s)*size)
	for i, e := range s {
		copy(out[i*size:], e)
	}
	return out
}

// assign lays the file out: superblock, object headers, global heaps,
// then raw data, each 8-byte aligned.
func (e *encoder) assign() {
	pos := uint64(superblockSize)
	for _, o := range e.objs {
		o.addr = pos
		pos = align8(pos + uint64(len(o.hdr)))
	}
	for _, h := range e.heaps[:e.heapN] {
		h.addr = pos
		pos = align8(pos + uint64(h.size()))
	}
	metaEnd := pos
	for _, d := range e.data {
		if d.size == 0 {
			continue
		}
		d.addr = pos
		pos = align8(pos + d.size)
	}
	eof := metaEnd
	for _, d := range e.data {
		if d.size > 0 {
			eof = d.addr + d.size
		}
	}
	meta := make([]byte, metaEnd)
	var sb buf
	sb.bytes([]byte(signature))
	sb.bytes([]byte{2, 8, 8, 0})
	sb.u64(0)
	sb.u64(undef)
	sb.u64(eof)
	sb.u64(e.objs[0].addr)
	sb.u32(lookup3(sb))
	copy(meta, sb)
	for _, o := range e.objs {
		copy(meta[o.addr:], o.hdr)
	}
	for _, h := range e.heaps[:e.heapN] {
		copy(meta[h.addr:], h.encode())
	}
	e.meta = meta
}

func align8(p uint64) uint64 { return (p + 7) &^ 7 }

const signature = "\x89HDF\r\n\x1a\n"

// writeRaw streams one dataset's raw data.
func writeRaw(w io.Writer, d *wdata) error {
	if d.size == 0 {
		return nil
	}
	if d.vlen != nil {
		_, err := w.Write(d.vlen)
		return err
	}
	if s, ok := d.value.([]string); ok {
		for _, e := range s {
			b := make([]byte, d.fixed)
			copy(b, e)
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	es := elemSize(d.value)
	n, _ := valueLen(d.value)
	const step = 1 << 13
	tmp := make([]byte, step*es)
	for i := 0; i < n; i += step {
		k := min(step, n-i)
		putElems(tmp, d.value, i, k)
		if _, err := w.Write(tmp[:k*es]); err != nil {
			return err
		}
	}
	return nil
}
