package ops

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Shape is a tensor shape. In symbolic (Keras) shapes a -1 stands for an
// unknown dimension, usually the batch.
type Shape []int

// CheckedSize is Size for shapes that come from outside (files, configs,
// callers' arguments): ok is false when a dimension is negative or the
// product overflows an int, where Size would wrap around.
func (s Shape) CheckedSize() (n int, ok bool) {
	n = 1
	for _, d := range s {
		if d < 0 {
			return 0, false
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return 0, false
		}
		n = int(lo)
	}
	return n, true
}

// Size is the number of elements, the product of the dimensions. It does
// not check for overflow (it is on every kernel's path); shapes from
// outside go through CheckedSize first, as Trace.Input does.
func (s Shape) Size() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// Equal reports whether s and o have the same rank and dimensions.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy of s.
func (s Shape) Clone() Shape { return append(Shape(nil), s...) }

// String formats s as Keras prints shapes: (None, 28, 28, 1).
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "None"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Error is the error ops raise (by panic while building a graph) for misuse.
type Error struct {
	Op  string
	Msg string
}

func (e *Error) Error() string { return "ops: " + e.Op + ": " + e.Msg }

func fail(op, format string, args ...any) {
	panic(&Error{Op: op, Msg: fmt.Sprintf(format, args...)})
}

// Tensor is a symbolic value of a [Trace]. The zero Tensor is "none", used
// for gradients of variables the loss does not depend on.
type Tensor struct {
	tr *Trace
	n  *gorgonia.Node
}

// IsNone reports whether t is the zero Tensor.
func (t Tensor) IsNone() bool { return t.n == nil }

// Shape returns the static shape of t.
func (t Tensor) Shape() Shape {
	if t.n == nil {
		return nil
	}
	return Shape(t.n.Shape())
}

// Rank is the number of dimensions of t.
func (t Tensor) Rank() int { return len(t.Shape()) }

// Trace returns the trace t belongs to.
func (t Tensor) Trace() *Trace { return t.tr }

// Node returns the underlying gorgonia node. Executors use it; layers must not.
func (t Tensor) Node() *gorgonia.Node { return t.n }

func (t Tensor) String() string {
	if t.n == nil {
		return "Tensor(none)"
	}
	return fmt.Sprintf("Tensor(%s, shape=%v)", t.n.Name(), t.Shape())
}

// Value is a concrete float32 array with its shape: what executors produce
// and hooks consume.
type Value struct {
	Shape Shape
	Data  []float32
}

// Dense wraps v as a gorgonia tensor sharing its data.
func (v Value) Dense() *tensor.Dense {
	return tensor.New(tensor.WithShape(v.Shape...), tensor.WithBacking(v.Data))
}

// ValueOf converts a float32 dense tensor into a Value sharing its data.
// Tensors of other dtypes are converted (copied) to float32.
func ValueOf(d *tensor.Dense) (Value, error) {
	shape := Shape(append([]int(nil), d.Shape()...))
	if d.IsScalar() {
		shape = Shape{}
	}
	switch data := d.Data().(type) {
	case []float32:
		if !d.IsMaterializable() {
			return Value{shape, data[:shape.Size()]}, nil
		}
		c := d.Materialize().(*tensor.Dense)
		return Value{shape, c.Data().([]float32)}, nil
	case float32:
		return Value{Shape{}, []float32{data}}, nil
	}
	out := make([]float32, shape.Size())
	switch data := d.Data().(type) {
	case []float64:
		for i, x := range data {
			out[i] = float32(x)
		}
	case []uint8:
		for i, x := range data {
			out[i] = float32(x)
		}
	case []int:
		for i, x := range data {
			out[i] = float32(x)
		}
	case []int32:
		for i, x := range data {
			out[i] = float32(x)
		}
	case []int64:
		for i, x := range data {
			out[i] = float32(x)
		}
	default:
		return Value{}, fmt.Errorf("ops: unsupported dtype %v", d.Dtype())
	}
	return Value{shape, out}, nil
}
