package utils

import (
	"errors"
	"slices"

	"gorgonia.org/tensor"
)

// rows is a tensor seen as rows of bytes along its first axis, to gather
// rows of any dtype with one copy each.
type rows struct {
	dtype    tensor.Dtype
	rowShape []int
	raw      []byte
	width    int // bytes per row
}

func rowsOf(t *tensor.Dense) (rows, error) {
	if !t.IsNativelyAccessible() {
		return rows{}, errors.New("tensor memory is not accessible from Go")
	}
	if t.RequiresIterator() || t.IsMaterializable() {
		m, ok := t.Materialize().(*tensor.Dense)
		if !ok {
			return rows{}, errors.New("tensor cannot be made contiguous")
		}
		t = m
	}
	if t.Dtype() == tensor.String {
		return rows{}, errors.New("string tensors are not supported")
	}
	shape := t.Shape()
	r := rows{dtype: t.Dtype(), rowShape: slices.Clone([]int(shape[1:]))}
	r.width = int(t.Dtype().Size())
	for _, d := range r.rowShape {
		r.width *= d
	}
	n := shape[0] * r.width
	r.raw = t.Raw[:n:n]
	return r, nil
}

// gather returns rows idx stacked as a tensor of shape lead+rowShape.
func (r rows) gather(idx []int, lead []int) *tensor.Dense {
	shape := append(slices.Clone(lead), r.rowShape...)
	if len(shape) == 0 {
		out := tensor.New(tensor.Of(r.dtype), tensor.WithShape(1))
		copy(out.Raw, r.raw[idx[0]*r.width:(idx[0]+1)*r.width])
		v, _ := out.At(0)
		return tensor.New(tensor.FromScalar(v))
	}
	out := tensor.New(tensor.Of(r.dtype), tensor.WithShape(shape...))
	for i, j := range idx {
		copy(out.Raw[i*r.width:(i+1)*r.width], r.raw[j*r.width:(j+1)*r.width])
	}
	return out
}
