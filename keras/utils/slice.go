package utils

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"gorgonia.org/tensor"
)

// End stands for the end of the first axis in [Slice]: Python's x[lo:].
const End = math.MaxInt

// Slice returns rows lo to hi (exclusive) of x along its first axis, as
// numpy's x[lo:hi]: a negative index counts from the end (x[-10000:] is
// Slice(x, -10000, End), x[:-10000] is Slice(x, 0, -10000)), indexes
// beyond the ends are clipped to them, and lo >= hi gives zero rows. The
// result shares x's memory, as a numpy slice does: writing to one changes
// the other.
func Slice(x *tensor.Dense, lo, hi int) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("utils: Slice: nil tensor")
	}
	shape := x.Shape()
	if x.IsScalar() || len(shape) == 0 {
		return nil, fmt.Errorf("utils: Slice: a scalar has no rows to slice")
	}
	if !x.IsNativelyAccessible() || x.RequiresIterator() {
		return nil, fmt.Errorf("utils: Slice: tensor of shape %v is not a contiguous Go array", shape)
	}
	n := shape[0]
	lo, hi = clipIndex(lo, n), clipIndex(hi, n)
	if hi <= lo {
		return nil, fmt.Errorf("utils: Slice: rows [%d:%d] of %d: the result would be empty, which a tensor.Dense cannot hold", lo, hi, n)
	}
	row := 1
	for _, d := range shape[1:] {
		row *= d
	}
	data := reflect.ValueOf(x.Data())
	if data.Kind() != reflect.Slice || data.Len() < n*row {
		return nil, fmt.Errorf("utils: Slice: tensor of shape %v holds %T", shape, x.Data())
	}
	out := append([]int{hi - lo}, shape[1:]...)
	return tensor.New(tensor.WithShape(out...), tensor.WithBacking(data.Slice(lo*row, hi*row).Interface())), nil
}

// clipIndex maps a Python index (negative from the end) into [0, n].
func clipIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}

// Reshape returns a new tensor holding x's values in the given shape, as
// numpy's np.reshape(x, shape): one dimension may be -1 and is inferred.
// The result shares x's memory (x itself is unchanged, unlike
// tensor.Dense's Reshape, which reshapes in place).
func Reshape(x *tensor.Dense, shape ...int) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("utils: Reshape: nil tensor")
	}
	if !x.IsNativelyAccessible() || x.RequiresIterator() {
		return nil, fmt.Errorf("utils: Reshape: tensor of shape %v is not a contiguous Go array", x.Shape())
	}
	size := x.Shape().TotalSize()
	if x.IsScalar() {
		size = 1
	}
	out := slices.Clone(shape)
	known, infer := 1, -1
	for i, d := range out {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			return nil, fmt.Errorf("utils: Reshape: cannot reshape %v to %v: one dimension at most may be -1, none other negative", x.Shape(), shape)
		default:
			if d > 0 && known > size/d+1 {
				return nil, fmt.Errorf("utils: Reshape: cannot reshape %v (%d values) to %v", x.Shape(), size, shape)
			}
			known *= d
		}
	}
	if infer >= 0 {
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("utils: Reshape: cannot reshape %v (%d values) to %v", x.Shape(), size, shape)
		}
		out[infer] = size / known
	} else if known != size {
		return nil, fmt.Errorf("utils: Reshape: cannot reshape %v (%d values) to %v (%d values)", x.Shape(), size, shape, known)
	}
	data := reflect.ValueOf(x.Data())
	if data.Kind() != reflect.Slice {
		return nil, fmt.Errorf("utils: Reshape: tensor of shape %v holds %T", x.Shape(), x.Data())
	}
	if len(out) == 0 {
		return tensor.New(tensor.FromScalar(data.Index(0).Interface())), nil
	}
	return tensor.New(tensor.WithShape(out...), tensor.WithBacking(data.Slice(0, size).Interface())), nil
}
