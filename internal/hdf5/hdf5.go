package hdf5

import (
	"fmt"
	"os"
	"strings"
)

// Group is an HDF5 group. Its children are in file/link order: creation
// order when the file tracks it (as files written by [Encode] do), else name
// order, the order h5py iterates.
type Group struct {
	Name     string
	Attrs    []Attr
	Groups   []*Group
	Datasets []*Dataset
}

// Dataset is an HDF5 dataset read whole into memory.
//
// Value is one of []float32, []float64, []int8, []int16, []int32, []int64,
// []uint8, []uint16, []uint32, []uint64, []string or []bool, holding the
// elements in row-major (C) order. Shape nil (or empty) means a scalar
// (rank 0) holding one element. When writing, a nil Shape with a Value of
// length other than one is taken as rank 1.
type Dataset struct {
	Name  string
	Shape []int
	Value any
	Attrs []Attr

	// src is the data Decode left in the file (Limits.DeferBytes).
	src *deferred

	// FixedStrings marks a []string Value that is (or is to be) stored as
	// fixed-length byte strings (numpy's "S" dtype, as legacy Keras writes
	// layer_names) rather than variable-length UTF-8 (h5py's default for
	// str). The reader sets it; the writer honours it.
	FixedStrings bool
}

// Attr is an attribute of a group or dataset. Value takes the types of
// [Dataset.Value]; Shape nil means a scalar, as for a dataset.
type Attr struct {
	Name  string
	Shape []int
	Value any

	// FixedStrings is as in [Dataset]: legacy Keras' layer_names and
	// weight_names are arrays of fixed-length byte strings.
	FixedStrings bool
}

// Group returns the direct child group called name, or nil.
func (g *Group) Group(name string) *Group {
	for _, c := range g.Groups {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Dataset returns the direct child dataset called name, or nil.
func (g *Group) Dataset(name string) *Dataset {
	for _, d := range g.Datasets {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Lookup finds the object at path ("a/b/c", relative to g). It returns the
// group or the dataset found there, or an error naming the missing part.
func (g *Group) Lookup(path string) (*Group, *Dataset, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	cur := g
	for i, p := range parts {
		if p == "" || p == "." {
			if i == len(parts)-1 {
				return cur, nil, nil
			}
			continue
		}
		if i == len(parts)-1 {
			if c := cur.Group(p); c != nil {
				return c, nil, nil
			}
			if d := cur.Dataset(p); d != nil {
				return nil, d, nil
			}
		} else if c := cur.Group(p); c != nil {
			cur = c
			continue
		}
		return nil, nil, fmt.Errorf("hdf5: %s: no such object (%q missing)", path, strings.Join(parts[:i+1], "/"))
	}
	return cur, nil, nil
}

// Attr returns the attribute called name.
func (g *Group) Attr(name string) (Attr, bool) { return findAttr(g.Attrs, name) }

// Attr returns the attribute called name.
func (d *Dataset) Attr(name string) (Attr, bool) { return findAttr(d.Attrs, name) }

func findAttr(as []Attr, name string) (Attr, bool) {
	for _, a := range as {
		if a.Name == name {
			return a, true
		}
	}
	return Attr{}, false
}

// Limits bounds what [Decode] allocates for one file. The zero value gives
// the defaults.
type Limits struct {
	// MaxBytes bounds the bytes of all values decoded (datasets and
	// attributes, after decompression). Zero means 1100 times the file
	// size plus 1 MiB: deflate cannot expand data by more than about 1032
	// times, so a well-formed file never needs more unless it declares
	// large unwritten (fill-valued) datasets.
	MaxBytes int64
	// MaxObjects bounds the number of groups, datasets, attributes and
	// links visited. Zero means 1<<20.
	MaxObjects int
	// DeferBytes, when positive, leaves the data of float datasets of at
	// least that many bytes in the file: their Value is nil and
	// [Dataset.ReadFloat32s] reads them, as many times as needed, into
	// memory the caller owns (a model's weights, so that loading holds
	// them once). The reader given to Decode must then stay readable;
	// such datasets are not safe for concurrent reads.
	DeferBytes int64
}

// ReadFile decodes the HDF5 file at path with the default [Limits].
func ReadFile(path string) (*Group, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hdf5: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("hdf5: %w", err)
	}
	g, err := Decode(f, st.Size(), Limits{})
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return g, nil
}
