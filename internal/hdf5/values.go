package hdf5

import (
	"fmt"
	"math"
)

// valueLen is the number of elements of a supported Value, or an error for
// an unsupported type.
func valueLen(v any) (int, error) {
	switch x := v.(type) {
	case []float32:
		return len(x), nil
	case []float64:
		return len(x), nil
	case []int8:
		return len(x), nil
	case []int16:
		return len(x), nil
	case []int32:
		return len(x), nil
	case []int64:
		return len(x), nil
	case []uint8:
		return len(x), nil
	case []uint16:
		return len(x), nil
	case []uint32:
		return len(x), nil
	case []uint64:
		return len(x), nil
	case []string:
		return len(x), nil
	case []bool:
		return len(x), nil
	case nil:
		return 0, fmt.Errorf("value is nil")
	}
	return 0, fmt.Errorf("unsupported value type %T", v)
}

// elemSize is the stored size of one numeric or bool element of v (0 for
// strings).
func elemSize(v any) int {
	switch v.(type) {
	case []float32, []int32, []uint32:
		return 4
	case []float64, []int64, []uint64:
		return 8
	case []int16, []uint16:
		return 2
	case []int8, []uint8, []bool:
		return 1
	}
	return 0
}

// putElems writes elements [from, from+n) of the numeric or bool slice v
// into dst little-endian; dst has room for n*elemSize(v) bytes.
func putElems(dst []byte, v any, from, n int) {
	switch x := v.(type) {
	case []float32:
		for i, e := range x[from : from+n] {
			putU32(dst[4*i:], math.Float32bits(e))
		}
	case []float64:
		for i, e := range x[from : from+n] {
			putU64(dst[8*i:], math.Float64bits(e))
		}
	case []int8:
		for i, e := range x[from : from+n] {
			dst[i] = byte(e)
		}
	case []uint8:
		copy(dst, x[from:from+n])
	case []bool:
		for i, e := range x[from : from+n] {
			dst[i] = 0
			if e {
				dst[i] = 1
			}
		}
	case []int16:
		for i, e := range x[from : from+n] {
			putU16(dst[2*i:], uint16(e))
		}
	case []uint16:
		for i, e := range x[from : from+n] {
			putU16(dst[2*i:], e)
		}
	case []int32:
		for i, e := range x[from : from+n] {
			putU32(dst[4*i:], uint32(e))
		}
	case []uint32:
		for i, e := range x[from : from+n] {
			putU32(dst[4*i:], e)
		}
	case []int64:
		for i, e := range x[from : from+n] {
			putU64(dst[8*i:], uint64(e))
		}
	case []uint64:
		for i, e := range x[from : from+n] {
			putU64(dst[8*i:], e)
		}
	}
}

func putU16(b []byte, v uint16) { b[0], b[1] = byte(v), byte(v>>8) }
func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func putU64(b []byte, v uint64) {
	putU32(b, uint32(v))
	putU32(b[4:], uint32(v>>32))
}

// shapeOf resolves the shape to write for a value of n elements: nil or
// empty with one element is a scalar, nil with any other count is rank 1.
func shapeOf(shape []int, n int) ([]int, error) {
	if len(shape) == 0 {
		if n == 1 {
			return nil, nil
		}
		return []int{n}, nil
	}
	p := 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("negative dimension in shape %v", shape)
		}
		p *= d
	}
	if p != n {
		return nil, fmt.Errorf("shape %v holds %d elements, value has %d", shape, p, n)
	}
	return shape, nil
}
