package datasets

import (
	"fmt"
	"math"
	"slices"

	"gorgonia.org/tensor"
)

// Keras' dtype names, as a port writes dtype="float32" or tf.uint8: the
// names Cast takes here, and ops.Cast and the layers' dtype options take
// in a model.
const (
	Float32 = "float32"
	Float64 = "float64"
	Int8    = "int8"
	Int16   = "int16"
	Int32   = "int32"
	Int64   = "int64"
	Uint8   = "uint8"
	Uint16  = "uint16"
	Bool    = "bool"
)

// dtypes maps Keras' dtype names to gorgonia's.
var dtypes = map[string]tensor.Dtype{
	Float32: tensor.Float32, Float64: tensor.Float64, Int8: tensor.Int8, Int16: tensor.Int16,
	Int32: tensor.Int32, Int64: tensor.Int64, Uint8: tensor.Uint8, Uint16: tensor.Uint16, Bool: tensor.Bool,
}

// Cast is tf.cast (keras.ops.cast) for a tensor in the input pipeline,
// as in ds.map(lambda x, y: (tf.cast(x, tf.float32), y)): a new tensor of
// x's shape in dtype, one of the names above. Floats become integers by
// truncation toward zero, integers wrap into a narrower integer type (as
// TensorFlow's casts do), anything non-zero is true and true is 1. A float
// that is NaN or outside the integer type's range is an error naming it,
// where TensorFlow's result is undefined.
func Cast(x *tensor.Dense, dtype string) (*tensor.Dense, error) {
	dt, ok := dtypes[dtype]
	if !ok {
		return nil, fmt.Errorf("datasets: Cast: dtype %q is not one of float32, float64, int8, int16, int32, int64, uint8, uint16, bool", dtype)
	}
	if x == nil {
		return nil, fmt.Errorf("datasets: Cast: nil tensor")
	}
	x = contiguous(x)
	shape := slices.Clone([]int(x.Shape()))
	if len(shape) == 0 {
		shape = nil
	}
	out := newDense(dt, shape)
	n := x.Shape().TotalSize()
	var get func(i int) (int64, float64, bool) // integer value, float value, is a float
	switch v := denseSlice(x).(type) {
	case []float32:
		get = func(i int) (int64, float64, bool) { return 0, float64(v[i]), true }
	case []float64:
		get = func(i int) (int64, float64, bool) { return 0, v[i], true }
	case []bool:
		get = func(i int) (int64, float64, bool) {
			if v[i] {
				return 1, 1, false
			}
			return 0, 0, false
		}
	case []uint8:
		get = intGetter(v)
	case []int8:
		get = intGetter(v)
	case []uint16:
		get = intGetter(v)
	case []int16:
		get = intGetter(v)
	case []int32:
		get = intGetter(v)
	case []int64:
		get = intGetter(v)
	case []int:
		get = intGetter(v)
	default:
		return nil, fmt.Errorf("datasets: Cast: dtype %v of shape %v is not supported", x.Dtype(), x.Shape())
	}
	lo, hi := intRange(dtype)
	toInt := func(i int) (int64, error) {
		iv, fv, isFloat := get(i)
		if !isFloat {
			return iv, nil
		}
		t := math.Trunc(fv)
		if math.IsNaN(fv) || t < lo || t > hi {
			return 0, fmt.Errorf("datasets: Cast: value %v at %d of a %v tensor of shape %v does not fit %s", fv, i, x.Dtype(), x.Shape(), dtype)
		}
		return int64(t), nil
	}
	var err error
	fill := func(set func(i int, v int64)) {
		for i := 0; i < n && err == nil; i++ {
			var v int64
			if v, err = toInt(i); err == nil {
				set(i, v)
			}
		}
	}
	switch dst := denseSlice(out).(type) {
	case []float32:
		for i := range n {
			iv, fv, isFloat := get(i)
			if !isFloat {
				fv = float64(iv)
			}
			dst[i] = float32(fv)
		}
	case []float64:
		for i := range n {
			iv, fv, isFloat := get(i)
			if !isFloat {
				fv = float64(iv)
			}
			dst[i] = fv
		}
	case []bool:
		for i := range n {
			iv, fv, isFloat := get(i)
			dst[i] = (isFloat && fv != 0) || (!isFloat && iv != 0)
		}
	case []int8:
		fill(func(i int, v int64) { dst[i] = int8(v) })
	case []int16:
		fill(func(i int, v int64) { dst[i] = int16(v) })
	case []int32:
		fill(func(i int, v int64) { dst[i] = int32(v) })
	case []int64:
		fill(func(i int, v int64) { dst[i] = v })
	case []uint8:
		fill(func(i int, v int64) { dst[i] = uint8(v) })
	case []uint16:
		fill(func(i int, v int64) { dst[i] = uint16(v) })
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func intGetter[T ~uint8 | ~int8 | ~uint16 | ~int16 | ~int32 | ~int64 | ~int](v []T) func(int) (int64, float64, bool) {
	return func(i int) (int64, float64, bool) { return int64(v[i]), 0, false }
}

// intRange is the range of the integer dtype a float must truncate into.
func intRange(dtype string) (lo, hi float64) {
	switch dtype {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Uint8:
		return 0, math.MaxUint8
	case Uint16:
		return 0, math.MaxUint16
	}
	return math.MinInt64, math.Nextafter(1<<63, 0) // int64: below 2^63
}

// ExpandDims is np.expand_dims / keras.ops.expand_dims (tf.expand_dims)
// for a tensor in the input pipeline or before a prediction, as in
// img_array = keras.ops.expand_dims(img_array, 0): x with a dimension of
// size 1 inserted at axis, in [-rank-1, rank] (-1 appends). The result
// shares x's memory (a NumPy view).
func ExpandDims(x *tensor.Dense, axis int) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("datasets: ExpandDims: nil tensor")
	}
	r := x.Dims()
	if x.Shape().IsScalar() {
		r = 0
	}
	if axis < -r-1 || axis > r {
		return nil, fmt.Errorf("datasets: ExpandDims: axis %d is out of range for a tensor of shape %v (rank %d)", axis, x.Shape(), r)
	}
	if axis < 0 {
		axis += r + 1
	}
	x = contiguous(x)
	shape := slices.Clone([]int(x.Shape()))
	if r == 0 {
		shape = nil
	}
	shape = slices.Insert(shape, axis, 1)
	return tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(shape...), tensor.WithBacking(denseSlice(x))), nil
}

// Arange is np.arange (keras.ops.arange) for the input pipeline:
// Arange(stop), Arange(start, stop) or Arange(start, stop, step), the
// values start + i*step short of stop, computed in float64 as NumPy does,
// as a float32 vector (gokeras' models read float32; Cast gives other
// dtypes). As np.arange, a range that runs the other way is empty. A step
// of 0, a wrong argument count or more than 2^31 values are errors.
func Arange(args ...float64) (*tensor.Dense, error) {
	start, stop, step := 0.0, 0.0, 1.0
	switch len(args) {
	case 1:
		stop = args[0]
	case 2:
		start, stop = args[0], args[1]
	case 3:
		start, stop, step = args[0], args[1], args[2]
	default:
		return nil, fmt.Errorf("datasets: Arange takes (stop), (start, stop) or (start, stop, step), got %d arguments", len(args))
	}
	for _, a := range args {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("datasets: Arange: arguments %v must be finite", args)
		}
	}
	if step == 0 {
		return nil, fmt.Errorf("datasets: Arange: step must not be 0")
	}
	count := math.Ceil((stop - start) / step)
	if count > math.MaxInt32 {
		return nil, fmt.Errorf("datasets: Arange%v: %v values is too many", args, count)
	}
	n := max(int(count), 0)
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(start + float64(i)*step)
	}
	return tensor.New(tensor.WithShape(n), tensor.WithBacking(out)), nil
}
