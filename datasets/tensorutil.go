package datasets

import (
	"reflect"
	"unsafe"

	"gorgonia.org/tensor"
)

// contiguous returns d itself when its elements lie row-major from the start
// of its backing memory, and a materialized copy when d is a strided view or
// a pending transpose, whose backing memory is not in logical order.
func contiguous(d *tensor.Dense) *tensor.Dense {
	if d.IsMaterializable() {
		if m, ok := d.Materialize().(*tensor.Dense); ok {
			return m
		}
	}
	return d
}

// denseBytes returns the memory of a contiguous tensor's elements as bytes.
// Copying bytes rather than typed values is what lets Batch stack tensors of
// any dtype with one copy per row. It reads the Raw byte slice that
// tensor.Dense exposes from its embedded storage header; the length is cut
// to the logical size because a backing may be longer than the tensor.
func denseBytes(d *tensor.Dense) []byte {
	n := d.Shape().TotalSize() * int(d.Dtype().Size())
	return d.Raw[:n:n]
}

// denseSlice returns the elements of a contiguous tensor as a typed slice
// ([]float32, []uint8, ...) sharing its memory. Unlike Dense.Data it also
// works for scalars (Data returns the value) and empty tensors (Data
// panics).
func denseSlice(d *tensor.Dense) any {
	raw := denseBytes(d)
	n := d.Shape().TotalSize()
	if n == 0 || len(raw) == 0 {
		return reflect.MakeSlice(reflect.SliceOf(d.Dtype().Type), 0, 0).Interface()
	}
	return reflect.SliceAt(d.Dtype().Type, unsafe.Pointer(&raw[0]), n).Interface()
}

// newDense allocates a zeroed tensor in one allocation.
func newDense(dt tensor.Dtype, shape []int) *tensor.Dense {
	return tensor.New(tensor.Of(dt), tensor.WithShape(shape...))
}
