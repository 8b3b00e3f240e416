package layers

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// The operations of keras.src.ops.numpy and keras.src.ops.core that
// saved graphs hold: arithmetic (x + 3.0, x * (1/6)), comparisons and
// logic (the masks of Embedding and Masking), elementwise math, casts and
// reductions. Booleans are 1 and 0, as every gokeras value is float32.

const (
	numpyModule = "keras.src.ops.numpy"
	coreModule  = "keras.src.ops.core"
	mathModule  = "keras.src.ops.math"
)

// binaryOp is an elementwise operation of two arguments, one of which may
// be a constant; scalar, when set, computes tensor-with-number without a
// broadcast (left: the number is the first argument), and says whether
// it did.
func binaryOp(class string, f func(a, b ops.Tensor) ops.Tensor, scalar func(x ops.Tensor, c float32, left bool) (ops.Tensor, bool)) func(*opConfig) (opRun, error) {
	return func(*opConfig) (opRun, error) {
		return func(args []any) ops.Tensor {
			a, b := args[0], args[1]
			like := firstTensor(a, b)
			if scalar != nil {
				if c, ok := argFloat(b); ok && isTensor(a) {
					if y, ok := scalar(a.(ops.Tensor), float32(c), false); ok {
						return y
					}
				}
				if c, ok := argFloat(a); ok && isTensor(b) {
					if y, ok := scalar(b.(ops.Tensor), float32(c), true); ok {
						return y
					}
				}
			}
			return f(asTensor(class, a, like), asTensor(class, b, like))
		}, nil
	}
}

func defineBinary(class string, f func(a, b ops.Tensor) ops.Tensor, scalar func(x ops.Tensor, c float32, left bool) (ops.Tensor, bool)) {
	defineOp(&opSpec{class: class, module: numpyModule, params: []string{"x1", "x2"}, required: 2, make: binaryOp(class, f, scalar)})
}

// defineUnary defines an elementwise operation of one tensor.
func defineUnary(class, module string, f func(x ops.Tensor) ops.Tensor) {
	defineOp(&opSpec{class: class, module: module, params: []string{"x"}, required: 1,
		make: func(*opConfig) (opRun, error) {
			return func(args []any) ops.Tensor { return f(asTensor(class, args[0], firstTensor(args...))) }, nil
		}})
}

// toBool is x != 0 as 1 and 0.
func toBool(x ops.Tensor) ops.Tensor { return ops.Cast(x, "bool") }

// minimum is min(a, b), the gradient to a on ties, as TensorFlow's.
func minimum(a, b ops.Tensor) ops.Tensor { return ops.Neg(ops.Maximum(ops.Neg(a), ops.Neg(b))) }

// power is a ** b: integer exponents by products (as exact as pow for the
// small ones saved graphs use), ±0.5 by square roots, others through
// exp(b log a), NaN for a negative base as pow gives.
func power(a, b ops.Tensor) ops.Tensor {
	return ops.Exp(ops.Mul(b, ops.Log(a)))
}

func powerScalar(x ops.Tensor, c float32, left bool) (ops.Tensor, bool) {
	if left {
		return ops.Tensor{}, false
	}
	switch {
	case c == 0.5:
		return ops.Sqrt(x), true
	case c == -0.5:
		return ops.Rsqrt(x), true
	case c == float32(math.Trunc(float64(c))) && math.Abs(float64(c)) <= 64:
		n := int(math.Abs(float64(c)))
		y := ops.OnesLike(x)
		for p, sq := n, x; p > 0; p >>= 1 {
			if p&1 == 1 {
				y = ops.Mul(y, sq)
			}
			if p > 1 {
				sq = ops.Mul(sq, sq)
			}
		}
		if c < 0 {
			y = ops.Div(ops.OnesLike(x), y)
		}
		return y, true
	}
	return ops.Exp(ops.Scale(ops.Log(x), c)), true
}

// reduceOp is an operation reducing x over axis (None: every axis) with
// keepdims.
func reduceOp(class string, f func(x ops.Tensor, keep bool, axes ...int) ops.Tensor, extra ...string) func(*opConfig) (opRun, error) {
	return func(c *opConfig) (opRun, error) {
		axes, given := c.axes("axis")
		keep := c.bool("keepdims")
		c.none(extra...)
		return func(args []any) ops.Tensor {
			x := asTensor(class, args[0], firstTensor(args...))
			if given && len(axes) == 0 {
				return x // numpy: axis=() reduces nothing
			}
			norm := make([]int, len(axes))
			for i, a := range axes {
				norm[i] = normAxis(class, a, x.Rank())
			}
			return f(x, keep, norm...)
		}, nil
	}
}

func defineReduce(class string, f func(x ops.Tensor, keep bool, axes ...int) ops.Tensor, extra ...string) {
	cfg := map[string]any{"axis": nil, "keepdims": false}
	for _, k := range extra {
		cfg[k] = nil
	}
	defineOp(&opSpec{class: class, module: numpyModule, params: []string{"x"}, required: 1, config: cfg, make: reduceOp(class, f, extra...)})
}

func reduceMin(x ops.Tensor, keep bool, axes ...int) ops.Tensor {
	return ops.Neg(ops.Max(ops.Neg(x), keep, axes...))
}

// castTo is the cast of keras.ops.cast to dtype, or false for a dtype
// gokeras has no cast to.
func castTo(dtype string) (func(ops.Tensor) ops.Tensor, bool) {
	switch dtype {
	case "float32", "float64":
		return func(x ops.Tensor) ops.Tensor { return x }, true
	case "float16", "bfloat16":
		return func(x ops.Tensor) ops.Tensor { return ops.CastToComputeDType(x, dtype) }, true
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool":
		return func(x ops.Tensor) ops.Tensor { return ops.Cast(x, dtype) }, true
	}
	return nil, false
}

func init() {
	defineBinary("Add", ops.Add, func(x ops.Tensor, c float32, _ bool) (ops.Tensor, bool) { return ops.AddScalar(x, c), true })
	defineBinary("Subtract", ops.Sub, func(x ops.Tensor, c float32, left bool) (ops.Tensor, bool) {
		if left {
			return ops.AddScalar(ops.Neg(x), c), true // c - x == -x + c exactly
		}
		return ops.AddScalar(x, -c), true
	})
	defineBinary("Multiply", ops.Mul, func(x ops.Tensor, c float32, _ bool) (ops.Tensor, bool) { return ops.Scale(x, c), true })
	// Division by a number divides (x / 6 is not x * (1/6) in float32).
	defineBinary("Divide", ops.Div, nil)
	defineBinary("TrueDivide", ops.Div, nil)
	defineBinary("Power", power, powerScalar)
	defineBinary("Maximum", ops.Maximum, nil)
	defineBinary("Minimum", minimum, nil)
	defineBinary("Equal", ops.Equal, nil)
	defineBinary("NotEqual", ops.NotEqual, nil)
	defineBinary("Greater", ops.Greater, nil)
	defineBinary("GreaterEqual", ops.GreaterEqual, nil)
	defineBinary("Less", ops.Less, nil)
	defineBinary("LessEqual", ops.LessEqual, nil)
	defineBinary("LogicalAnd", func(a, b ops.Tensor) ops.Tensor { return ops.Mul(toBool(a), toBool(b)) }, nil)
	defineBinary("LogicalOr", func(a, b ops.Tensor) ops.Tensor { return ops.Maximum(toBool(a), toBool(b)) }, nil)
	defineBinary("LogicalXor", func(a, b ops.Tensor) ops.Tensor { return ops.NotEqual(toBool(a), toBool(b)) }, nil)
	defineUnary("LogicalNot", numpyModule, func(x ops.Tensor) ops.Tensor { return ops.Equal(x, x.Trace().Scalar(0)) })

	defineUnary("Negative", numpyModule, ops.Neg)
	defineUnary("Abs", numpyModule, ops.Abs)
	defineUnary("Absolute", numpyModule, ops.Abs)
	defineUnary("Square", numpyModule, ops.Square)
	defineUnary("Sqrt", numpyModule, ops.Sqrt)
	defineUnary("Exp", numpyModule, ops.Exp)
	defineUnary("Log", numpyModule, ops.Log)
	defineUnary("Tanh", numpyModule, ops.Tanh)
	defineUnary("Sign", numpyModule, ops.Sign)
	defineUnary("Reciprocal", numpyModule, func(x ops.Tensor) ops.Tensor { return ops.Div(ops.OnesLike(x), x) })
	defineUnary("Rsqrt", mathModule, ops.Rsqrt)

	defineOp(&opSpec{class: "Clip", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"x_min": nil, "x_max": nil},
		make: func(c *opConfig) (opRun, error) {
			lo, hi := c.float("x_min"), c.float("x_max")
			return func(args []any) ops.Tensor {
				return ops.Clip(asTensor("Clip", args[0], firstTensor(args...)), lo, hi)
			}, nil
		}})
	defineOp(&opSpec{class: "Where", module: numpyModule, params: []string{"condition", "x1", "x2"}, required: 1,
		make: func(*opConfig) (opRun, error) {
			return func(args []any) ops.Tensor {
				if args[1] == nil || args[2] == nil {
					opFail("Where", "where(condition) without both branches (the indices of nonzero entries) is not supported")
				}
				like := firstTensor(args...)
				return ops.Select(asTensor("Where", args[0], like), asTensor("Where", args[1], like), asTensor("Where", args[2], like))
			}, nil
		}})

	defineReduce("Sum", ops.Sum)
	defineReduce("Mean", ops.Mean)
	defineReduce("Max", ops.Max, "initial")
	defineReduce("Amax", ops.Max)
	defineReduce("Min", reduceMin, "initial")
	defineReduce("Amin", reduceMin)
	defineReduce("Any", func(x ops.Tensor, keep bool, axes ...int) ops.Tensor { return ops.Max(toBool(x), keep, axes...) })
	defineReduce("All", func(x ops.Tensor, keep bool, axes ...int) ops.Tensor { return reduceMin(toBool(x), keep, axes...) })

	castMake := func(class string) func(c *opConfig) (opRun, error) {
		return func(c *opConfig) (opRun, error) {
			f := func(x ops.Tensor) ops.Tensor { return x }
			if c.m["dtype"] != nil || class == "Cast" {
				d := c.str("dtype")
				g, ok := castTo(d)
				if !ok {
					c.fail("dtype %q: gokeras casts to float32, float64, float16, bfloat16, the integer types and bool", d)
				}
				f = g
			}
			c.none("sparse", "ragged")
			return func(args []any) ops.Tensor { return f(asTensor(class, args[0], firstTensor(args...))) }, nil
		}
	}
	defineOp(&opSpec{class: "Cast", module: coreModule, params: []string{"x"}, required: 1,
		config: map[string]any{"dtype": nil}, make: castMake("Cast")})
	defineOp(&opSpec{class: "ConvertToTensor", module: coreModule, params: []string{"x"}, required: 1,
		config: map[string]any{"dtype": nil, "sparse": nil, "ragged": nil}, make: castMake("ConvertToTensor")})
}
