package ops

import (
	"math"

	"github.com/gokeras/gokeras/internal/vec"
)

// Relu returns max(x, 0): NaN stays NaN, as in Keras (and in the fused
// forms BiasAddRelu, AddRelu and BatchNormApply with Relu).
func Relu(x Tensor) Tensor {
	if y, ok := fuseRelu(x); ok {
		return y
	}
	return unary("Relu", x, unaryAttrs{}, vec.Relu,
		func(_, y, dy Tensor) Tensor { return reluGrad(y, dy) })
}

// reluGrad is dy where y > 0, fused so the backward pass is one op. When dy
// is the gradient of a max pooling of y, the mask goes into the pooling's
// scatter instead (maxPoolOfRelu).
func reluGrad(y, dy Tensor) Tensor {
	if pdy, pooled, a, ok := maxPoolOfRelu(y, dy); ok {
		a.Masked = true
		return maxPoolScatter(pdy, pooled, a, false)
	}
	tr := sameTrace("ReluGrad", y, dy)
	return tr.apply(&Op{
		name: "ReluGrad", out: y.Shape(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			ys, g := in[0][:len(o)], in[1][:len(o)]
			parallelElems(len(o), func(lo, hi int) { vec.ReluGrad(o[lo:hi], ys[lo:hi], g[lo:hi]) })
		},
		wrt: []bool{false, true},
		grad: func(in []Tensor, _, g Tensor) []Tensor {
			return []Tensor{{}, reluGrad(in[0], g)}
		},
	}, y, dy)
}

// Sigmoid returns 1 / (1 + e^-x).
func Sigmoid(x Tensor) Tensor {
	return unary("Sigmoid", x, unaryAttrs{}, mapf(sigmoid),
		func(_, y, dy Tensor) Tensor { return Mul(dy, Mul(y, OneMinus(y))) })
}

func sigmoid(v float32) float32 {
	if v >= 0 {
		return float32(1 / (1 + math.Exp(-float64(v))))
	}
	e := math.Exp(float64(v))
	return float32(e / (1 + e))
}

// Tanh returns the hyperbolic tangent of x.
func Tanh(x Tensor) Tensor {
	return unary("Tanh", x, unaryAttrs{}, mapf(func(v float32) float32 { return float32(math.Tanh(float64(v))) }),
		func(_, y, dy Tensor) Tensor { return Mul(dy, OneMinus(Square(y))) })
}

func lastAxis(op string, x Tensor) (rows, n int) {
	s := x.Shape()
	if len(s) == 0 {
		fail(op, "needs rank >= 1, got a scalar")
	}
	n = s[len(s)-1]
	return s.Size() / max(n, 1), n
}

// Softmax normalises the last axis of x into probabilities.
func Softmax(x Tensor) Tensor {
	tr := sameTrace("Softmax", x)
	rows, n := lastAxis("Softmax", x)
	return tr.apply(&Op{
		name: "Softmax", out: x.Shape(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			for r := 0; r < rows; r++ {
				softmaxRow(o[r*n:(r+1)*n], in[0][r*n:(r+1)*n])
			}
		},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			// dx = y * (dy - sum(dy*y, last))
			return []Tensor{Mul(y, Sub(dy, Sum(Mul(dy, y), true, -1)))}
		},
	}, x)
}

func softmaxRow(o, x []float32) {
	m := float32(math.Inf(-1))
	for _, v := range x {
		m = max(m, v)
	}
	var s float64
	for i, v := range x {
		e := float32(math.Exp(float64(v - m)))
		o[i] = e
		s += float64(e)
	}
	inv := float32(1 / s)
	for i := range o {
		o[i] *= inv
	}
}

// LogSoftmax returns log(softmax(x)) over the last axis, computed stably.
func LogSoftmax(x Tensor) Tensor {
	tr := sameTrace("LogSoftmax", x)
	rows, n := lastAxis("LogSoftmax", x)
	return tr.apply(&Op{
		name: "LogSoftmax", out: x.Shape(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			for r := 0; r < rows; r++ {
				xs, os := in[0][r*n:(r+1)*n], o[r*n:(r+1)*n]
				lse := logSumExp(xs)
				for i, v := range xs {
					os[i] = v - lse
				}
			}
		},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			// dx = dy - softmax * sum(dy, last)
			return []Tensor{Sub(dy, Mul(Exp(y), Sum(dy, true, -1)))}
		},
	}, x)
}

func logSumExp(x []float32) float32 {
	m := float32(math.Inf(-1))
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(float64(m), 0) {
		return m
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v - m))
	}
	return m + float32(math.Log(s))
}

// SoftmaxInput returns the logits x if t was computed as Softmax(x). Losses
// use it, as Keras does, to compute cross-entropy from logits when given
// softmax probabilities.
func SoftmaxInput(t Tensor) (Tensor, bool) { return opInput(t, "Softmax") }

// SigmoidInput returns x if t was computed as Sigmoid(x).
func SigmoidInput(t Tensor) (Tensor, bool) { return opInput(t, "Sigmoid") }

func opInput(t Tensor, kind string) (Tensor, bool) {
	if t.n == nil {
		return Tensor{}, false
	}
	op, ok := t.n.Op().(*Op)
	if !ok || op.name != kind {
		return Tensor{}, false
	}
	ch := Children(t.tr.g, t.n)
	return t.tr.wrap(ch[0]), true
}

// Rsqrt returns 1/sqrt(x).
func Rsqrt(x Tensor) Tensor {
	return unary("Rsqrt", x, unaryAttrs{}, mapf(func(v float32) float32 { return float32(1 / math.Sqrt(float64(v))) }),
		func(_, y, dy Tensor) Tensor { return Mul(dy, Scale(Mul(y, Square(y)), -0.5)) })
}
