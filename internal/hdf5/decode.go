package hdf5

import (
	"errors"
	"fmt"
	"io"
	"sort"
)

// Decode reads the HDF5 file held by r (size bytes) and returns its root
// group "/", with every dataset and attribute value in memory.
//
// An object reached through several hard links appears under each name;
// those copies share their contents (children, attributes, values).
//
// Decode never trusts a size the file declares: metadata must lie inside
// the file, and values (after decompression) are bounded by lim. Soft and
// external links, external storage and virtual datasets are refused with
// an error naming the object, as Keras refuses them.
func Decode(r io.ReaderAt, size int64, lim Limits) (*Group, error) {
	if r == nil || size <= 0 {
		return nil, errors.New("hdf5: empty file")
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = 1100*size + 1<<20
		if lim.MaxBytes < 0 || size > 1<<52 {
			lim.MaxBytes = 1 << 62
		}
	}
	if lim.MaxObjects <= 0 {
		lim.MaxObjects = 1 << 20
	}
	d := &decoder{r: r, size: uint64(size), budget: lim.MaxBytes, lim: lim,
		onPath: map[uint64]bool{}, gheaps: map[uint64]map[uint32][]byte{},
		groups: map[uint64]*Group{}, datasets: map[uint64]*Dataset{}, weight: map[uint64]int{}}
	d.readLeft = 32*d.size + 64<<20
	d.inflateLeft = 2 * uint64(lim.MaxBytes)
	root, err := d.superblock()
	if err != nil {
		return nil, fmt.Errorf("hdf5: superblock: %w", err)
	}
	g, err := d.group("/", root)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// decoder holds what one Decode call knows about its file.
type decoder struct {
	r       io.ReaderAt
	size    uint64
	base    uint64
	offSize int
	lenSize int
	lim     Limits
	budget  int64 // value bytes left to allocate
	objects int
	onPath  map[uint64]bool // object headers being decoded (cycle check)
	gheaps  map[uint64]map[uint32][]byte
	// Objects decoded so far by header address: an object reached again
	// through another hard link is shared, not decoded again.
	groups   map[uint64]*Group
	datasets map[uint64]*Dataset
	weight   map[uint64]int // objects counted while decoding each of them
	// readLeft bounds the bytes read in all: a well-formed file reads each
	// structure about once, so a file that makes us re-read its bytes many
	// times (overlapping B-tree nodes, chunks, ...) is cut off, keeping
	// decoding time proportional to the file size.
	readLeft uint64
	// inflateLeft bounds the bytes all filtered chunks inflate to.
	inflateLeft uint64
	// [sbLo, sbHi) are the file bytes of the superblock, once parsed: no
	// object, chunk or data of the file may lie there.
	sbLo, sbHi uint64
}

// pathError is an error already naming its object.
type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return "hdf5: " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// at names path in err unless an inner object already did.
func at(path string, err error) error {
	var pe *pathError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	return &pathError{path, err}
}

// read returns n bytes at file address addr (relative to the base).
func (d *decoder) read(addr, n uint64) ([]byte, error) {
	if addr == undef {
		return nil, errors.New("undefined address")
	}
	a := addr + d.base
	if a < addr || a > d.size || n > d.size-a {
		return nil, fmt.Errorf("%d bytes at address %d lie beyond the end of the file (%d bytes)", n, addr, d.size)
	}
	b := make([]byte, n)
	if err := d.readInto(b, addr); err != nil {
		return nil, err
	}
	return b, nil
}

// readInto fills b from file address addr.
func (d *decoder) readInto(b []byte, addr uint64) error {
	n := uint64(len(b))
	a := addr + d.base
	if addr == undef || a < addr || a > d.size || n > d.size-a {
		return fmt.Errorf("%d bytes at address %d lie beyond the end of the file (%d bytes)", n, addr, d.size)
	}
	if n > 0 && a < d.sbHi && a+n > d.sbLo {
		return fmt.Errorf("%d bytes at address %d overlap the superblock (file bytes %d to %d)", n, addr, d.sbLo, d.sbHi)
	}
	if n > d.readLeft {
		return errors.New("file structure makes the decoder re-read its bytes too often (overlapping or repeated structures)")
	}
	d.readLeft -= n
	if _, err := d.r.ReadAt(b, int64(a)); err != nil && !(errors.Is(err, io.EOF) && a+n == d.size) {
		return fmt.Errorf("read %d bytes at %d: %w", n, addr, err)
	}
	return nil
}

// readUpTo reads at most n bytes at addr, fewer where the file ends.
func (d *decoder) readUpTo(addr, n uint64) ([]byte, error) {
	a := addr + d.base
	if addr == undef || a < addr || a >= d.size {
		return nil, fmt.Errorf("address %d lies beyond the end of the file (%d bytes)", addr, d.size)
	}
	return d.read(addr, min(n, d.size-a))
}

// rdAt is a field reader over n bytes at addr.
func (d *decoder) rdAt(addr, n uint64) (*rd, error) {
	b, err := d.read(addr, n)
	if err != nil {
		return nil, err
	}
	return d.rd(b), nil
}

func (d *decoder) rd(b []byte) *rd { return &rd{b: b, offSize: d.offSize, lenSize: d.lenSize} }

// charge takes n bytes from the value budget.
func (d *decoder) charge(n uint64) error {
	if n > uint64(d.budget) {
		return fmt.Errorf("value of %d bytes exceeds the decoding limit (%d bytes left of Limits.MaxBytes %d)", n, d.budget, d.lim.MaxBytes)
	}
	d.budget -= int64(n)
	return nil
}

// count takes one from the object budget.
func (d *decoder) count() error {
	d.objects++
	if d.objects > d.lim.MaxObjects {
		return fmt.Errorf("more than Limits.MaxObjects=%d objects", d.lim.MaxObjects)
	}
	return nil
}

// link is one named child of a group.
type link struct {
	name   string
	order  int64 // creation order, -1 if not tracked
	addr   uint64
	soft   string // soft link target
	extern string // external link "file:/path"
	other  int    // other (user-defined) link type, 0 if none
}

// group decodes the group whose object header is at addr.
func (d *decoder) group(path string, addr uint64) (*Group, error) {
	oh, err := d.objectHeader(addr)
	if err != nil {
		return nil, at(path, err)
	}
	return d.groupFrom(path, addr, oh)
}

// maxDepth bounds group nesting (each level is a distinct object, so a
// file can only nest as deep as it has headers; this keeps recursion
// shallow regardless).
const maxDepth = 4096

func (d *decoder) groupFrom(path string, addr uint64, oh *objectHeader) (*Group, error) {
	if len(d.onPath) >= maxDepth {
		return nil, &pathError{path, fmt.Errorf("groups nested deeper than %d", maxDepth)}
	}
	d.onPath[addr] = true
	defer delete(d.onPath, addr)
	g := &Group{Name: baseName(path)}
	var err error
	if g.Attrs, err = d.attributes(path, oh); err != nil {
		return nil, at(path, err)
	}
	links, err := d.links(oh)
	if err != nil {
		return nil, at(path, err)
	}
	for _, l := range links {
		p := joinPath(path, l.name)
		switch {
		case l.soft != "":
			return nil, &pathError{p, fmt.Errorf("is a soft link to %q; soft links are not allowed", l.soft)}
		case l.extern != "":
			return nil, &pathError{p, fmt.Errorf("is an external link to %q; external links are not allowed", l.extern)}
		case l.other != 0:
			return nil, &pathError{p, fmt.Errorf("is a user-defined link (type %d); only hard links are allowed", l.other)}
		}
		if err := d.count(); err != nil {
			return nil, at(p, err)
		}
		if d.onPath[l.addr] {
			return nil, &pathError{p, errors.New("links back to a group containing it (cycle)")}
		}
		if n, ok := d.weight[l.addr]; ok {
			// Shared again: count its whole subtree, so the tree a caller
			// walks stays within MaxObjects.
			if d.objects += n; d.objects > d.lim.MaxObjects {
				return nil, &pathError{p, fmt.Errorf("more than Limits.MaxObjects=%d objects (through repeated hard links)", d.lim.MaxObjects)}
			}
		}
		if c, ok := d.groups[l.addr]; ok {
			cp := *c
			cp.Name = l.name
			g.Groups = append(g.Groups, &cp)
			continue
		}
		if c, ok := d.datasets[l.addr]; ok {
			cp := *c
			cp.Name = l.name
			g.Datasets = append(g.Datasets, &cp)
			continue
		}
		before := d.objects
		coh, err := d.objectHeader(l.addr)
		if err != nil {
			return nil, at(p, err)
		}
		switch coh.kind() {
		case kindGroup:
			c, err := d.groupFrom(p, l.addr, coh)
			if err != nil {
				return nil, err
			}
			c.Name = l.name
			d.groups[l.addr] = c
			d.weight[l.addr] = d.objects - before
			g.Groups = append(g.Groups, c)
		case kindDataset:
			ds, err := d.dataset(p, coh)
			if err != nil {
				return nil, at(p, err)
			}
			ds.Name = l.name
			d.datasets[l.addr] = ds
			d.weight[l.addr] = d.objects - before
			g.Datasets = append(g.Datasets, ds)
		default:
			// A committed datatype: not data. Anything else (an object
			// without messages, such as a header whose messages were cut
			// off) is an error rather than a dataset silently left out.
			if _, ok := coh.first(msgDatatype); !ok {
				return nil, &pathError{p, errors.New("object header holds neither a group, a dataset nor a datatype")}
			}
		}
	}
	return g, nil
}

// sortLinks orders links by creation order when every link has one, else
// by name (h5py's iteration order).
func sortLinks(ls []link) {
	tracked := len(ls) > 0
	for _, l := range ls {
		if l.order < 0 {
			tracked = false
		}
	}
	if tracked {
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].order < ls[j].order })
		return
	}
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].name < ls[j].name })
}

func baseName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			if i == len(path)-1 {
				return path
			}
			return path[i+1:]
		}
	}
	return path
}
