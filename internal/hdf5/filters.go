package hdf5

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
)

// filter is one filter of a dataset's pipeline.
type filter struct {
	id       uint16
	optional bool
	client   []uint32
}

const (
	filterDeflate    = 1
	filterShuffle    = 2
	filterFletcher32 = 3
)

// parseFilters decodes a filter pipeline message (versions 1 and 2).
func (d *decoder) parseFilters(b []byte) ([]filter, error) {
	r := d.rd(b)
	version := r.u8()
	n := int(r.u8())
	if version == 1 {
		r.skip(6)
	} else if version != 2 {
		return nil, fmt.Errorf("filter pipeline version %d", version)
	}
	if n > 32 {
		return nil, fmt.Errorf("filter pipeline of %d filters", n)
	}
	var fs []filter
	for i := 0; i < n; i++ {
		var f filter
		f.id = r.u16()
		nameLen := 0
		if version == 1 || f.id >= 256 {
			nameLen = int(r.u16())
		}
		f.optional = r.u16()&1 != 0
		nv := int(r.u16())
		if version == 1 {
			nameLen = (nameLen + 7) &^ 7
		}
		r.skip(nameLen)
		for k := 0; k < nv && r.err == nil; k++ {
			f.client = append(f.client, r.u32())
		}
		if version == 1 && nv%2 == 1 {
			r.skip(4)
		}
		if r.err != nil {
			return nil, fmt.Errorf("filter pipeline: %w", r.err)
		}
		switch f.id {
		case filterDeflate, filterShuffle, filterFletcher32:
		default:
			if !f.optional {
				return nil, fmt.Errorf("unsupported filter %d (only gzip, shuffle and fletcher32)", f.id)
			}
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// unfilter undoes the pipeline on one stored chunk; mask bit i set means
// filter i was skipped. The result holds at most want bytes.
func unfilter(fs []filter, mask uint32, b []byte, want int, elem int) ([]byte, error) {
	for i := len(fs) - 1; i >= 0; i-- {
		if i < 32 && mask&(1<<uint(i)) != 0 {
			continue
		}
		f := fs[i]
		switch f.id {
		case filterDeflate:
			zr, err := zlib.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, fmt.Errorf("gzip: %w", err)
			}
			out := bytes.NewBuffer(make([]byte, 0, want))
			n, err := io.Copy(out, io.LimitReader(zr, int64(want)+1))
			if err != nil {
				return nil, fmt.Errorf("gzip: %w", err)
			}
			if n > int64(want) {
				return nil, fmt.Errorf("gzip chunk inflates beyond its %d-byte chunk", want)
			}
			b = out.Bytes()
		case filterShuffle:
			size := elem
			if len(f.client) > 0 {
				size = int(f.client[0])
			}
			b = unshuffle(b, size)
		case filterFletcher32:
			if len(b) < 4 {
				return nil, errors.New("fletcher32 chunk shorter than its checksum")
			}
			b = b[:len(b)-4]
		default:
			return nil, fmt.Errorf("unsupported filter %d", f.id)
		}
	}
	return b, nil
}

// unshuffle undoes HDF5's byte shuffle: the first byte of every element,
// then every second byte, ...; trailing bytes that do not fill an element
// are left in place.
func unshuffle(b []byte, size int) []byte {
	if size <= 1 || len(b) < size {
		return b
	}
	n := len(b) / size
	out := make([]byte, len(b))
	for k := 0; k < size; k++ {
		src := b[k*n : (k+1)*n]
		for i, c := range src {
			out[i*size+k] = c
		}
	}
	copy(out[n*size:], b[n*size:])
	return out
}
