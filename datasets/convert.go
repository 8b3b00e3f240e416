package datasets

import (
	"fmt"
	"slices"

	"gorgonia.org/tensor"
)

// ToFloat32 converts images to float32 and multiplies them by scale, the
// usual first step before training (scale 1/255.0 maps pixels to [0, 1]).
// x is a tensor.Uint8 (or tensor.Float32) tensor of any rank, typically
// (N, H, W); with addChannel the result gets a trailing dimension of 1,
// (N, H, W, 1), the channels-last layout convolution layers expect.
// The result is a new tensor; x is not modified.
func ToFloat32(x *tensor.Dense, scale float32, addChannel bool) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("datasets: ToFloat32: nil tensor")
	}
	if !x.IsNativelyAccessible() {
		return nil, fmt.Errorf("datasets: ToFloat32: tensor memory is not accessible from Go")
	}
	x = contiguous(x)
	shape := slices.Clone([]int(x.Shape()))
	if addChannel {
		shape = append(shape, 1)
	}
	var out []float32
	switch src := denseSlice(x).(type) {
	case []uint8:
		// A table of the 256 possible results avoids a multiply per pixel
		// and gives exactly the same values as the direct computation.
		var table [256]float32
		for i := range table {
			table[i] = float32(i) * scale
		}
		out = make([]float32, len(src))
		for i, v := range src {
			out[i] = table[v]
		}
	case []float32:
		out = make([]float32, len(src))
		for i, v := range src {
			out[i] = v * scale
		}
	default:
		return nil, fmt.Errorf("datasets: ToFloat32: dtype %v of shape %v not supported, want uint8 or float32", x.Dtype(), x.Shape())
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

// LabelsToFloat32 converts integer class ids (any integer dtype, or float32
// or float64) to a float32 tensor of the same shape: the project keeps
// labels as float32 class ids so that they travel in the same kind of
// tensor as the model's inputs.
func LabelsToFloat32(y *tensor.Dense) (*tensor.Dense, error) {
	if y == nil {
		return nil, fmt.Errorf("datasets: LabelsToFloat32: nil tensor")
	}
	if !y.IsNativelyAccessible() {
		return nil, fmt.Errorf("datasets: LabelsToFloat32: tensor memory is not accessible from Go")
	}
	y = contiguous(y)
	var out []float32
	switch src := denseSlice(y).(type) {
	case []uint8:
		out = convertSlice(src)
	case []int8:
		out = convertSlice(src)
	case []uint16:
		out = convertSlice(src)
	case []int16:
		out = convertSlice(src)
	case []uint32:
		out = convertSlice(src)
	case []int32:
		out = convertSlice(src)
	case []uint64:
		out = convertSlice(src)
	case []int64:
		out = convertSlice(src)
	case []int:
		out = convertSlice(src)
	case []uint:
		out = convertSlice(src)
	case []float32:
		out = slices.Clone(src)
	case []float64:
		out = convertSlice(src)
	default:
		return nil, fmt.Errorf("datasets: LabelsToFloat32: dtype %v not supported, want an integer or float type", y.Dtype())
	}
	shape := slices.Clone([]int(y.Shape()))
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

type number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~int | ~uint | ~float32 | ~float64
}

func convertSlice[T number](src []T) []float32 {
	out := make([]float32, len(src))
	for i, v := range src {
		out[i] = float32(v)
	}
	return out
}
