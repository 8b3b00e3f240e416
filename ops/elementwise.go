package ops

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/internal/vec"
)

type binaryAttrs struct{}

// binKind names the arithmetic of a binary op, so that its kernel is a
// loop specialised per broadcast pattern (binaryKernel) rather than a
// call per element.
type binKind int

const (
	binAdd binKind = iota
	binSub
	binMul
	binDiv
	binMax
	binGreaterEqual
)

func binary(name string, a, b Tensor, kind binKind, grad func(a, b, y, dy Tensor) (Tensor, Tensor)) Tensor {
	tr := sameTrace(name, a, b)
	out, ok := BroadcastShape(a.Shape(), b.Shape())
	if !ok {
		fail(name, "shapes %v and %v are not broadcast-compatible", a.Shape(), b.Shape())
	}
	o := &Op{name: name, out: out, attrs: binaryAttrs{}, fwd: binaryKernel(a.Shape(), b.Shape(), out, kind)}
	if grad != nil {
		o.grad = func(in []Tensor, y, dy Tensor) []Tensor {
			ga, gb := grad(in[0], in[1], y, dy)
			return []Tensor{SumTo(ga, in[0].Shape()), SumTo(gb, in[1].Shape())}
		}
	}
	return tr.apply(o, a, b)
}

// Add returns a + b with broadcasting.
func Add(a, b Tensor) Tensor {
	return binary("Add", a, b, binAdd, func(_, _, _, dy Tensor) (Tensor, Tensor) { return dy, dy })
}

// Sub returns a - b with broadcasting.
func Sub(a, b Tensor) Tensor {
	return binary("Sub", a, b, binSub, func(_, _, _, dy Tensor) (Tensor, Tensor) { return dy, Neg(dy) })
}

// Mul returns a * b elementwise with broadcasting.
func Mul(a, b Tensor) Tensor {
	return binary("Mul", a, b, binMul, func(a, b, _, dy Tensor) (Tensor, Tensor) { return Mul(dy, b), Mul(dy, a) })
}

// Div returns a / b elementwise with broadcasting.
func Div(a, b Tensor) Tensor {
	return binary("Div", a, b, binDiv, func(a, b, y, dy Tensor) (Tensor, Tensor) {
		gb := Neg(Div(Mul(dy, y), b))
		return Div(dy, b), gb
	})
}

// Maximum returns max(a, b) elementwise; the gradient goes to a where a >= b.
func Maximum(a, b Tensor) Tensor {
	return binary("Maximum", a, b, binMax, func(a, b, _, dy Tensor) (Tensor, Tensor) {
		m := binary("GreaterEqual", a, b, binGreaterEqual, nil)
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

// unary adds an elementwise op. kernel computes a whole slice (dst, x of
// equal length); it runs in parallel chunks on large tensors.
func unary(name string, x Tensor, attrs unaryAttrs, kernel func(dst, x []float32), grad func(x, y, dy Tensor) Tensor) Tensor {
	tr := sameTrace(name, x)
	o := &Op{
		name: name, out: x.Shape(), attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			xs := in[0][:len(o)]
			parallelElems(len(o), func(lo, hi int) { kernel(o[lo:hi], xs[lo:hi]) })
		},
	}
	if grad != nil {
		o.grad = func(in []Tensor, y, dy Tensor) []Tensor { return []Tensor{grad(in[0], y, dy)} }
	}
	return tr.apply(o, x)
}

// mapf returns a slice kernel applying f to each element: for the ops whose
// per-element work (a transcendental function) outweighs the call.
func mapf(f func(float32) float32) func(dst, x []float32) {
	return func(dst, x []float32) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = f(v)
		}
	}
}

// Neg returns -x.
func Neg(x Tensor) Tensor {
	return unary("Neg", x, unaryAttrs{}, func(d, x []float32) { vec.Scale(d, x, -1) },
		func(_, _, dy Tensor) Tensor { return Neg(dy) })
}

// Scale returns c * x for a constant c.
func Scale(x Tensor, c float32) Tensor {
	return unary("Scale", x, unaryAttrs{C: c}, func(d, x []float32) { vec.Scale(d, x, c) },
		func(_, _, dy Tensor) Tensor { return Scale(dy, c) })
}

// AddScalar returns x + c for a constant c.
func AddScalar(x Tensor, c float32) Tensor {
	return unary("AddScalar", x, unaryAttrs{C: c}, func(d, x []float32) { vec.AddScalar(d, x, c) },
		func(_, _, dy Tensor) Tensor { return dy })
}

// OneMinus returns 1 - x.
func OneMinus(x Tensor) Tensor {
	return unary("OneMinus", x, unaryAttrs{}, func(d, x []float32) {
		x = x[:len(d)]
		for i, v := range x {
			d[i] = 1 - v
		}
	}, func(_, _, dy Tensor) Tensor { return Neg(dy) })
}

// Exp returns e^x.
func Exp(x Tensor) Tensor {
	return unary("Exp", x, unaryAttrs{}, mapf(func(v float32) float32 { return float32(math.Exp(float64(v))) }),
		func(_, y, dy Tensor) Tensor { return Mul(dy, y) })
}

// Log returns the natural logarithm of x.
func Log(x Tensor) Tensor {
	return unary("Log", x, unaryAttrs{}, mapf(func(v float32) float32 { return float32(math.Log(float64(v))) }),
		func(x, _, dy Tensor) Tensor { return Div(dy, x) })
}

// Sqrt returns the square root of x.
func Sqrt(x Tensor) Tensor {
	return unary("Sqrt", x, unaryAttrs{}, func(d, x []float32) {
		x = x[:len(d)]
		for i, v := range x {
			d[i] = float32(math.Sqrt(float64(v)))
		}
	}, func(_, y, dy Tensor) Tensor { return Div(Scale(dy, 0.5), y) })
}

// Square returns x*x.
func Square(x Tensor) Tensor {
	return unary("Square", x, unaryAttrs{}, vec.Square,
		func(x, _, dy Tensor) Tensor { return Mul(Scale(dy, 2), x) })
}

// Abs returns |x|; its gradient at 0 is 0, as in TensorFlow.
func Abs(x Tensor) Tensor {
	return unary("Abs", x, unaryAttrs{}, func(d, x []float32) {
		x = x[:len(d)]
		for i, v := range x {
			d[i] = math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
		}
	}, func(x, _, dy Tensor) Tensor { return Mul(dy, Sign(x)) })
}

// Sign returns -1, 0 or 1. It has no gradient.
func Sign(x Tensor) Tensor {
	return unary("Sign", x, unaryAttrs{}, func(d, x []float32) {
		x = x[:len(d)]
		for i, v := range x {
			switch {
			case v > 0:
				d[i] = 1
			case v < 0:
				d[i] = -1
			default:
				d[i] = 0
			}
		}
	}, nil)
}

// Clip limits x to [lo, hi]; the gradient passes where lo <= x <= hi, as
// tf.clip_by_value's does.
func Clip(x Tensor, lo, hi float32) Tensor {
	if lo > hi {
		fail("Clip", "lo %v > hi %v", lo, hi)
	}
	return unary("Clip", x, unaryAttrs{C: lo, D: hi}, func(d, x []float32) {
		x = x[:len(d)]
		for i, v := range x {
			d[i] = min(max(v, lo), hi)
		}
	}, func(x, _, dy Tensor) Tensor {
		mask := unary("ClipMask", x, unaryAttrs{C: lo, D: hi}, func(d, x []float32) {
			x = x[:len(d)]
			for i, v := range x {
				d[i] = b2f(v >= lo && v <= hi)
			}
		}, nil)
		return Mul(dy, mask)
	})
}

// Log1pExp returns log(1 + e^x), computed without overflow.
func Log1pExp(x Tensor) Tensor {
	return unary("Softplus", x, unaryAttrs{}, mapf(softplus), func(x, _, dy Tensor) Tensor { return Mul(dy, Sigmoid(x)) })
}

func softplus(v float32) float32 {
	x := float64(v)
	return float32(math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))))
}

// Reshape returns x with a new shape of the same size. One dimension may be
// -1 and is inferred. The op is a view: executors may let its output share
// the input's storage (see [Op.ViewOf]); its kernel copies for those that
// do not.
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
