package ops

import (
	"fmt"
	"math"
)

type binaryAttrs struct{}

func binary(name string, a, b Tensor, f func(x, y float32) float32, grad func(a, b, y, dy Tensor) (Tensor, Tensor)) Tensor {
	tr := sameTrace(name, a, b)
	out, ok := BroadcastShape(a.Shape(), b.Shape())
	if !ok {
		fail(name, "shapes %v and %v are not broadcast-compatible", a.Shape(), b.Shape())
	}
	return tr.apply(&Op{
		name: name, out: out, attrs: binaryAttrs{},
		fwd: binaryKernel(a.Shape(), b.Shape(), out, f),
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			ga, gb := grad(in[0], in[1], y, dy)
			return []Tensor{SumTo(ga, in[0].Shape()), SumTo(gb, in[1].Shape())}
		},
	}, a, b)
}

// Add returns a + b with broadcasting.
func Add(a, b Tensor) Tensor {
	return binary("Add", a, b, func(x, y float32) float32 { return x + y },
		func(_, _, _, dy Tensor) (Tensor, Tensor) { return dy, dy })
}

// Sub returns a - b with broadcasting.
func Sub(a, b Tensor) Tensor {
	return binary("Sub", a, b, func(x, y float32) float32 { return x - y },
		func(_, _, _, dy Tensor) (Tensor, Tensor) { return dy, Neg(dy) })
}

// Mul returns a * b elementwise with broadcasting.
func Mul(a, b Tensor) Tensor {
	return binary("Mul", a, b, func(x, y float32) float32 { return x * y },
		func(a, b, _, dy Tensor) (Tensor, Tensor) { return Mul(dy, b), Mul(dy, a) })
}

// Div returns a / b elementwise with broadcasting.
func Div(a, b Tensor) Tensor {
	return binary("Div", a, b, func(x, y float32) float32 { return x / y },
		func(a, b, y, dy Tensor) (Tensor, Tensor) {
			gb := Neg(Div(Mul(dy, y), b))
			return Div(dy, b), gb
		})
}

// Maximum returns max(a, b) elementwise; the gradient goes to a where a >= b.
func Maximum(a, b Tensor) Tensor {
	return binary("Maximum", a, b, func(x, y float32) float32 { return max(x, y) },
		func(a, b, _, dy Tensor) (Tensor, Tensor) {
			m := binary("GreaterEqual", a, b, func(x, y float32) float32 { return b2f(x >= y) }, nil)
			return Mul(dy, m), Mul(dy, OneMinus(m))
		})
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

type unaryAttrs struct{ C, D float32 }

func unary(name string, x Tensor, attrs unaryAttrs, f func(float32) float32, grad func(x, y, dy Tensor) Tensor) Tensor {
	tr := sameTrace(name, x)
	o := &Op{
		name: name, out: x.Shape(), attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			xs := in[0][:len(o)]
			for i := range o {
				o[i] = f(xs[i])
			}
		},
	}
	if grad != nil {
		o.grad = func(in []Tensor, y, dy Tensor) []Tensor { return []Tensor{grad(in[0], y, dy)} }
	}
	return tr.apply(o, x)
}

// Neg returns -x.
func Neg(x Tensor) Tensor {
	return unary("Neg", x, unaryAttrs{}, func(v float32) float32 { return -v },
		func(_, _, dy Tensor) Tensor { return Neg(dy) })
}

// Scale returns c * x for a constant c.
func Scale(x Tensor, c float32) Tensor {
	return unary("Scale", x, unaryAttrs{C: c}, func(v float32) float32 { return c * v },
		func(_, _, dy Tensor) Tensor { return Scale(dy, c) })
}

// AddScalar returns x + c for a constant c.
func AddScalar(x Tensor, c float32) Tensor {
	return unary("AddScalar", x, unaryAttrs{C: c}, func(v float32) float32 { return v + c },
		func(_, _, dy Tensor) Tensor { return dy })
}

// OneMinus returns 1 - x.
func OneMinus(x Tensor) Tensor {
	return unary("OneMinus", x, unaryAttrs{}, func(v float32) float32 { return 1 - v },
		func(_, _, dy Tensor) Tensor { return Neg(dy) })
}

// Exp returns e^x.
func Exp(x Tensor) Tensor {
	return unary("Exp", x, unaryAttrs{}, func(v float32) float32 { return float32(math.Exp(float64(v))) },
		func(_, y, dy Tensor) Tensor { return Mul(dy, y) })
}

// Log returns the natural logarithm of x.
func Log(x Tensor) Tensor {
	return unary("Log", x, unaryAttrs{}, func(v float32) float32 { return float32(math.Log(float64(v))) },
		func(x, _, dy Tensor) Tensor { return Div(dy, x) })
}

// Sqrt returns the square root of x.
func Sqrt(x Tensor) Tensor {
	return unary("Sqrt", x, unaryAttrs{}, func(v float32) float32 { return float32(math.Sqrt(float64(v))) },
		func(_, y, dy Tensor) Tensor { return Div(Scale(dy, 0.5), y) })
}

// Square returns x*x.
func Square(x Tensor) Tensor {
	return unary("Square", x, unaryAttrs{}, func(v float32) float32 { return v * v },
		func(x, _, dy Tensor) Tensor { return Mul(Scale(dy, 2), x) })
}

// Abs returns |x|; its gradient at 0 is 0, as in TensorFlow.
func Abs(x Tensor) Tensor {
	return unary("Abs", x, unaryAttrs{}, func(v float32) float32 { return float32(math.Abs(float64(v))) },
		func(x, _, dy Tensor) Tensor { return Mul(dy, Sign(x)) })
}

// Sign returns -1, 0 or 1. It has no gradient.
func Sign(x Tensor) Tensor {
	return unary("Sign", x, unaryAttrs{}, func(v float32) float32 {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}, nil)
}

// Clip limits x to [lo, hi]; the gradient passes where lo <= x <= hi, as
// tf.clip_by_value's does.
func Clip(x Tensor, lo, hi float32) Tensor {
	if lo > hi {
		fail("Clip", "lo %v > hi %v", lo, hi)
	}
	return unary("Clip", x, unaryAttrs{C: lo, D: hi}, func(v float32) float32 { return min(max(v, lo), hi) },
		func(x, _, dy Tensor) Tensor {
			mask := unary("ClipMask", x, unaryAttrs{C: lo, D: hi}, func(v float32) float32 { return b2f(v >= lo && v <= hi) }, nil)
			return Mul(dy, mask)
		})
}

// Log1pExp returns log(1 + e^x), computed without overflow.
func Log1pExp(x Tensor) Tensor {
	return unary("Softplus", x, unaryAttrs{}, softplus, func(x, _, dy Tensor) Tensor { return Mul(dy, Sigmoid(x)) })
}

func softplus(v float32) float32 {
	x := float64(v)
	return float32(math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))))
}

// Reshape returns x with a new shape of the same size. One dimension may be
// -1 and is inferred.
func Reshape(x Tensor, shape Shape) Tensor {
	tr := sameTrace("Reshape", x)
	out := shape.Clone()
	known, infer := 1, -1
	for i, d := range out {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d <= 0:
			fail("Reshape", "cannot reshape %v to %v", x.Shape(), shape)
		default:
			known *= d
		}
	}
	if infer >= 0 {
		if known == 0 || x.Shape().Size()%known != 0 {
			fail("Reshape", "cannot reshape %v to %v", x.Shape(), shape)
		}
		out[infer] = x.Shape().Size() / known
	}
	if out.Size() != x.Shape().Size() {
		fail("Reshape", "cannot reshape %v (%d elements) to %v (%d elements)", x.Shape(), x.Shape().Size(), out, out.Size())
	}
	if out.Equal(x.Shape()) {
		return x
	}
	in := x.Shape()
	return tr.apply(&Op{
		name: "Reshape", out: out, attrs: fmt.Sprint(out),
		fwd:  func(o []float32, in [][]float32) { copy(o, in[0]) },
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{Reshape(dy, in)} },
	}, x)
}
