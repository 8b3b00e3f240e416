package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// opConfig reads an operation's config, keeping the first error.
type opConfig struct {
	m   map[string]any
	err error
}

func (c *opConfig) fail(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, a...)
	}
}

// axes reads an axis argument: None (nil, ok false), an integer or a list
// of integers.
func (c *opConfig) axes(key string) (axes []int, given bool) {
	v := c.m[key]
	if v == nil {
		return nil, false
	}
	axes, err := argInts(v)
	if err != nil {
		c.fail("%s: %v", key, err)
	}
	return axes, true
}

// axis reads an argument that is one integer.
func (c *opConfig) axis(key string) int {
	n, ok := argInt(c.m[key])
	if !ok {
		c.fail("%s: want an integer, got %v", key, c.m[key])
	}
	return n
}

func (c *opConfig) bool(key string) bool {
	b, ok := c.m[key].(bool)
	if !ok {
		c.fail("%s: want a boolean, got %v", key, c.m[key])
	}
	return b
}

func (c *opConfig) float(key string) float32 {
	f, ok := argFloat(c.m[key])
	if !ok {
		c.fail("%s: want a number, got %v", key, c.m[key])
	}
	return float32(f)
}

func (c *opConfig) str(key string) string {
	s, ok := c.m[key].(string)
	if !ok {
		c.fail("%s: want a string, got %v", key, c.m[key])
	}
	return s
}

// none fails unless each key is None (or false): arguments gokeras does
// not compute.
func (c *opConfig) none(keys ...string) {
	for _, k := range keys {
		if v := c.m[k]; v != nil && v != false {
			c.fail("%s = %v is not supported", k, v)
		}
	}
}

// argInt reads an integer from a decoded JSON number or a Go integer.
func argInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return int(x), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= math.MaxInt32 {
			return int(x), true
		}
	}
	return 0, false
}

// argFloat reads a number (a boolean is 0 or 1, as Python's).
func argFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// argInts reads an integer or a list of integers.
func argInts(v any) ([]int, error) {
	if n, ok := argInt(v); ok {
		return []int{n}, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an integer or a list of integers, got %v", v)
	}
	out := make([]int, len(list))
	for i, e := range list {
		n, ok := argInt(e)
		if !ok {
			return nil, fmt.Errorf("want a list of integers, got %v", v)
		}
		out[i] = n
	}
	return out, nil
}

// isTensor reports whether a call argument is a tensor.
func isTensor(v any) bool {
	_, ok := v.(ops.Tensor)
	return ok
}

// firstTensor is the first tensor among the arguments (an operation's
// call has one at least), whose trace constants join.
func firstTensor(args ...any) ops.Tensor {
	for _, a := range args {
		switch x := a.(type) {
		case ops.Tensor:
			return x
		case []any:
			if t := firstTensor(x...); !t.IsNone() {
				return t
			}
		}
	}
	return ops.Tensor{}
}

// maxConstValues bounds the constant a nested list of numbers makes:
// the list itself came from the file (a few bytes a value), so this only
// refuses shapes whose product overflows.
const maxConstValues = 1 << 28

// asTensor is a call argument as a tensor of like's trace: a tensor
// itself, a number or boolean as a scalar constant, a nested list of
// numbers or an [OpArray] as a constant of its shape.
func asTensor(op string, v any, like ops.Tensor) ops.Tensor {
	if t, ok := v.(ops.Tensor); ok {
		return t
	}
	tr := like.Trace()
	if f, ok := argFloat(v); ok {
		return tr.Scalar(float32(f))
	}
	switch x := v.(type) {
	case OpArray:
		n := 1
		for _, d := range x.Shape {
			if d < 0 || (d > 0 && n > maxConstValues/d) {
				panic(&ops.Error{Op: op, Msg: fmt.Sprintf("constant of shape %v", x.Shape)})
			}
			n *= d
		}
		if n != len(x.Values) {
			panic(&ops.Error{Op: op, Msg: fmt.Sprintf("constant of shape %v has %d values", x.Shape, len(x.Values))})
		}
		data := make([]float32, n)
		for i, f := range x.Values {
			data[i] = float32(f)
		}
		return tr.Constant(ops.Shape(x.Shape).Clone(), data)
	case []any:
		shape, data, err := nestedNumbers(x)
		if err != nil {
			panic(&ops.Error{Op: op, Msg: err.Error()})
		}
		return tr.Constant(shape, data)
	}
	panic(&ops.Error{Op: op, Msg: fmt.Sprintf("argument %v is neither a tensor nor a number", describeArg(v))})
}

// nestedNumbers reads a nested list of numbers of a regular shape, as
// numpy.array would.
func nestedNumbers(list []any) (ops.Shape, []float32, error) {
	var shape ops.Shape
	for v := any(list); ; {
		l, ok := v.([]any)
		if !ok {
			break
		}
		shape = append(shape, len(l))
		if len(l) == 0 {
			return nil, nil, fmt.Errorf("an empty list is not a constant gokeras computes with")
		}
		v = l[0]
	}
	var data []float32
	var walk func(v any, d int) error
	walk = func(v any, d int) error {
		if d == len(shape) {
			f, ok := argFloat(v)
			if !ok {
				return fmt.Errorf("constant %v: %v is not a number", describeArg(list), describeArg(v))
			}
			data = append(data, float32(f))
			return nil
		}
		l, ok := v.([]any)
		if !ok || len(l) != shape[d] {
			return fmt.Errorf("constant %v is not a regular array", describeArg(list))
		}
		for _, e := range l {
			if err := walk(e, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(list, 0); err != nil {
		return nil, nil, err
	}
	return shape, data, nil
}

// describeArg prints an argument briefly for an error message.
func describeArg(v any) string {
	var s string
	switch x := v.(type) {
	case ops.Tensor:
		s = "tensor " + x.Shape().String()
	case nil:
		s = "None"
	default:
		s = fmt.Sprint(v)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// opFail panics with an *ops.Error naming the operation.
func opFail(class, format string, a ...any) {
	panic(&ops.Error{Op: class, Msg: fmt.Sprintf(format, a...)})
}

// normAxis resolves a possibly negative axis of a rank-r tensor.
func normAxis(class string, axis, r int) int {
	a := axis
	if a < 0 {
		a += r
	}
	if a < 0 || a >= r {
		opFail(class, "axis %d is out of range for rank %d", axis, r)
	}
	return a
}
