package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// gradCase is an op under a finite-difference gradient check: build applies
// it to tensors of the given shapes; gen fills input i (default: uniform in
// [-1, 1]).
type gradCase struct {
	name   string
	shapes []ops.Shape
	build  func(tr *ops.Trace, xs []ops.Tensor) ops.Tensor
	gen    func(i int, r *rand.Rand) float32
	tol    float64
	// smooth, when set, is build without its rounding to bfloat16 (an op
	// that rounds its output, cast_fused.go, is piecewise constant): the
	// finite differences are of smooth, and the weights R are bfloat16,
	// so that build's gradient (the cast's, R rounded, then the op's) is
	// smooth's.
	smooth func(tr *ops.Trace, xs []ops.Tensor) ops.Tensor
}

// checkGrad compares the symbolic gradient of L = sum(f(x) * R), for a
// random R, with central differences of L computed in float64 from f's
// float32 outputs.
func checkGrad(t *testing.T, c gradCase) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(len(c.name))))
	vars := make([]*ops.Variable, len(c.shapes))
	for i, s := range c.shapes {
		data := make([]float32, s.Size())
		for j := range data {
			if c.gen != nil {
				data[j] = c.gen(i, r)
			} else {
				data[j] = r.Float32()*2 - 1
			}
		}
		vars[i] = ops.NewVariable(c.name, s, data, true)
	}
	var weights []float32
	tr := ops.NewTrace(true, 0, 7)
	xs := make([]ops.Tensor, len(vars))
	for i, v := range vars {
		xs[i] = tr.Read(v)
	}
	y := c.build(tr, xs)
	weights = make([]float32, y.Shape().Size())
	for j := range weights {
		weights[j] = r.Float32()*2 - 1
		if c.smooth != nil {
			weights[j] = ops.RoundBFloat16(weights[j])
		}
	}
	loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), weights)), false)
	grads, err := ops.Gradients(loss, vars)
	if err != nil {
		t.Fatalf("%s: Gradients: %v", c.name, err)
	}
	outs := []ops.Tensor{y}
	for i, g := range grads {
		if g.IsNone() {
			t.Fatalf("%s: no gradient for input %d", c.name, i)
		}
		outs = append(outs, g)
	}
	p, err := engine.Compile(tr, outs)
	if err != nil {
		t.Fatalf("%s: compile: %v", c.name, err)
	}
	fd := p // the program whose loss is differenced
	if c.smooth != nil {
		str := ops.NewTrace(true, 0, 7)
		sxs := make([]ops.Tensor, len(vars))
		for i, v := range vars {
			sxs[i] = str.Read(v)
		}
		if fd, err = engine.Compile(str, []ops.Tensor{c.smooth(str, sxs)}); err != nil {
			t.Fatalf("%s: compile smooth: %v", c.name, err)
		}
	}
	lossAt := func() float64 {
		vals, err := fd.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatalf("%s: run: %v", c.name, err)
		}
		var s float64
		for j, v := range vals[0].Data {
			s += float64(v) * float64(weights[j])
		}
		return s
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatalf("%s: run: %v", c.name, err)
	}
	analytic := make([][]float32, len(vars))
	for i := range vars {
		analytic[i] = append([]float32(nil), vals[1+i].Data...)
	}
	tol := c.tol
	if tol == 0 {
		tol = 2e-3
	}
	const eps = 1e-3
	for i, v := range vars {
		data := v.Data(0)
		// Check every element of small inputs, a sample of large ones.
		idx := r.Perm(len(data))
		if len(idx) > 60 {
			idx = idx[:60]
		}
		for _, j := range idx {
			orig := data[j]
			data[j] = orig + eps
			lp := lossAt()
			data[j] = orig - eps
			lm := lossAt()
			data[j] = orig
			num := (lp - lm) / (2 * eps)
			got := float64(analytic[i][j])
			if math.Abs(got-num) > tol*math.Max(1, math.Abs(num)) {
				t.Errorf("%s: d/dx%d[%d] = %.6g, finite difference %.6g", c.name, i, j, got, num)
			}
		}
	}
}

func positive(_ int, r *rand.Rand) float32 { return 0.5 + r.Float32() }

func TestGradients(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	cases := []gradCase{
		{name: "Add", shapes: []ops.Shape{s(2, 3, 4), s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Add(x[0], x[1]) }},
		{name: "AddBroadcast", shapes: []ops.Shape{s(2, 1, 4), s(3, 1)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Add(x[0], x[1]) }},
		{name: "SubBroadcast", shapes: []ops.Shape{s(2, 3, 4), s(4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Sub(x[0], x[1]) }},
		{name: "MulBroadcast", shapes: []ops.Shape{s(3, 4), s(3, 1)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Mul(x[0], x[1]) }},
		{name: "MulScalar", shapes: []ops.Shape{s(3, 4), s()}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Mul(x[0], x[1]) }},
		{name: "Div", shapes: []ops.Shape{s(3, 4), s(4)}, gen: positive, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Div(x[0], x[1]) }},
		{name: "Maximum", shapes: []ops.Shape{s(3, 4), s(3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Maximum(x[0], x[1]) }},
		{name: "Neg", shapes: []ops.Shape{s(5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Neg(x[0]) }},
		{name: "Scale", shapes: []ops.Shape{s(5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Scale(x[0], -2.5) }},
		{name: "AddScalar", shapes: []ops.Shape{s(5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.AddScalar(x[0], 3) }},
		{name: "OneMinus", shapes: []ops.Shape{s(5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.OneMinus(x[0]) }},
		{name: "Exp", shapes: []ops.Shape{s(2, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Exp(x[0]) }},
		{name: "Log", shapes: []ops.Shape{s(2, 5)}, gen: positive, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Log(x[0]) }},
		{name: "Sqrt", shapes: []ops.Shape{s(2, 5)}, gen: positive, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Sqrt(x[0]) }},
		{name: "Rsqrt", shapes: []ops.Shape{s(2, 5)}, gen: positive, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Rsqrt(x[0]) }},
		{name: "Square", shapes: []ops.Shape{s(2, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Square(x[0]) }},
		{name: "Abs", shapes: []ops.Shape{s(2, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Abs(x[0]) }},
		{name: "Clip", shapes: []ops.Shape{s(4, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Clip(x[0], -0.5, 0.5) }},
		{name: "Softplus", shapes: []ops.Shape{s(4, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Log1pExp(ops.Scale(x[0], 20)) }},
		{name: "Reshape", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Reshape(x[0], s(4, -1)) }},
		{name: "SumTo", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.SumTo(x[0], s(3, 1)) }},
		{name: "BroadcastTo", shapes: []ops.Shape{s(3, 1)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.BroadcastTo(x[0], s(2, 3, 4)) }},
		{name: "SumAxes", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Sum(x[0], false, 0, 2) }},
		{name: "MeanKeep", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Mean(x[0], true, -1) }},
		{name: "MeanAll", shapes: []ops.Shape{s(2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Mean(x[0], false) }},
		{name: "Relu", shapes: []ops.Shape{s(3, 7)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Relu(x[0]) }},
		{name: "ReluTwice", shapes: []ops.Shape{s(3, 7)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Add(ops.Relu(x[0]), ops.Square(x[0])) }},
		{name: "Sigmoid", shapes: []ops.Shape{s(3, 7)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Sigmoid(ops.Scale(x[0], 4)) }},
		{name: "Tanh", shapes: []ops.Shape{s(3, 7)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Tanh(ops.Scale(x[0], 2)) }},
		{name: "Softmax", shapes: []ops.Shape{s(3, 6)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Softmax(ops.Scale(x[0], 3)) }},
		{name: "LogSoftmax", shapes: []ops.Shape{s(3, 6)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.LogSoftmax(ops.Scale(x[0], 3)) }},
		{name: "MatMul", shapes: []ops.Shape{s(3, 5), s(5, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.MatMul(x[0], x[1], false, false) }},
		{name: "MatMulTA", shapes: []ops.Shape{s(5, 3), s(5, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.MatMul(x[0], x[1], true, false) }},
		{name: "MatMulTB", shapes: []ops.Shape{s(3, 5), s(4, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.MatMul(x[0], x[1], false, true) }},
		{name: "MatMulTATB", shapes: []ops.Shape{s(5, 3), s(4, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.MatMul(x[0], x[1], true, true) }},
		{name: "BiasAdd", shapes: []ops.Shape{s(2, 3, 4), s(4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.BiasAdd(x[0], x[1]) }},
		{name: "Conv2DValid", shapes: []ops.Shape{s(2, 6, 5, 3), s(3, 2, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
		}},
		{name: "Conv2DSameStrided", shapes: []ops.Shape{s(2, 7, 6, 2), s(3, 3, 2, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "Conv2DDilated", shapes: []ops.Shape{s(1, 7, 7, 2), s(3, 3, 2, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "Conv2D1x1", shapes: []ops.Shape{s(2, 3, 3, 4), s(1, 1, 4, 5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
		}},
		{name: "Conv2D1x1Strided", shapes: []ops.Shape{s(2, 5, 5, 3), s(1, 1, 3, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{2, 2}, Padding: "valid"})
		}},
		{name: "MaxPoolValid", shapes: []ops.Shape{s(2, 6, 6, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.MaxPool2D(x[0], ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
		{name: "MaxPoolSameOverlap", shapes: []ops.Shape{s(1, 7, 5, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.MaxPool2D(x[0], ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "AvgPoolValid", shapes: []ops.Shape{s(2, 5, 6, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.AvgPool2D(x[0], ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
		{name: "AvgPoolSame", shapes: []ops.Shape{s(1, 5, 5, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.AvgPool2D(x[0], ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "SparseSoftmaxXent", shapes: []ops.Shape{s(4, 5)}, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.SparseSoftmaxCrossEntropyWithLogits(tr.Constant(s(4), []float32{0, 4, 2, 2}), ops.Scale(x[0], 3))
		}},
		{name: "SoftmaxXent", shapes: []ops.Shape{s(3, 4)}, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.SoftmaxCrossEntropyWithLogits(tr.Constant(s(3, 4), []float32{0, 1, 0, 0, .2, .3, .5, 0, 0, 0, 0, 1}), ops.Scale(x[0], 3))
		}},
		{name: "SigmoidXent", shapes: []ops.Shape{s(2, 3)}, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.SigmoidCrossEntropyWithLogits(tr.Constant(s(2, 3), []float32{0, 1, 1, 0, .5, 1}), ops.Scale(x[0], 5))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
}

// TestBackwardOrderedAfterForward fetches only gradients of losses that are
// linear in the output, so nothing but the graph's edges orders the
// backward ops (which read the forward pass's state) after the forward ops.
func TestBackwardOrderedAfterForward(t *testing.T) {
	tr := ops.NewTrace(true, 0, 1)
	xv := ops.NewVariable("x", ops.Shape{1, 4, 4, 1}, []float32{1, 2, 0, 0, 0, 0, 3, 0, 0, 5, 0, 0, 0, 0, 0, 4}, true)
	wv := ops.NewVariable("w", ops.Shape{1, 1, 1, 1}, []float32{2}, true)
	x, w := tr.Read(xv), tr.Read(wv)
	pooled := ops.MaxPool2D(x, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
	conv := ops.Conv2D(x, w, ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
	loss := ops.Add(ops.Sum(pooled, false), ops.Sum(conv, false))
	grads, err := ops.Gradients(loss, []*ops.Variable{xv, wv})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, grads)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// d/dx: 1 at each window's maximum (from the pool) plus w=2 everywhere (from the conv).
	want := []float32{2, 3, 2, 2, 2, 2, 3, 2, 2, 3, 2, 2, 2, 2, 2, 3}
	for i, g := range vals[0].Data {
		if g != want[i] {
			t.Fatalf("dx = %v, want %v", vals[0].Data, want)
		}
	}
	// d/dw = sum(x) = 15.
	if vals[1].Data[0] != 15 {
		t.Errorf("dw = %v, want 15", vals[1].Data[0])
	}
}
