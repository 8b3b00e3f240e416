package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// bnTrain builds training-mode batch norm from the fused ops, as the
// BatchNormalization layer does (synchronized mode all-reduces the sums,
// an identity with one replica).
func bnTrain(x, gamma, beta ops.Tensor, relu, sync bool) ops.Tensor {
	sums := ops.BatchNormSums(x)
	if sync {
		sums = ops.AllReduceSum(sums)
	}
	y := ops.BatchNormApply(x, ops.BatchNormMoments(sums), gamma, beta, ops.BatchNormAttrs{Epsilon: 1e-3, Training: true, Synchronized: sync})
	if relu {
		y = ops.Relu(y)
	}
	return y
}

// TestGradientsFused checks the fused ops (and the fusions Relu makes on
// its own) by central differences.
func TestGradientsFused(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	// Spread inputs so batch statistics are well conditioned.
	spread := func(_ int, r *rand.Rand) float32 { return float32(r.NormFloat64()*1.5 + 0.3) }
	cases := []gradCase{
		{name: "BiasAddRelu", shapes: []ops.Shape{s(2, 3, 4), s(4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BiasAddRelu(x[0], x[1])
		}},
		{name: "ReluOfBiasAdd", shapes: []ops.Shape{s(5, 6), s(6)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Relu(ops.BiasAdd(x[0], x[1]))
		}},
		{name: "AddRelu", shapes: []ops.Shape{s(3, 7), s(3, 7)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.AddRelu(x[0], x[1])
		}},
		{name: "ReluOfAddUsedTwice", shapes: []ops.Shape{s(3, 7), s(3, 7)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			sum := ops.Add(x[0], x[1])
			return ops.Add(ops.Relu(sum), ops.Scale(sum, 0.5))
		}},
		{name: "MaxPoolOfRelu", shapes: []ops.Shape{s(2, 6, 6, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.MaxPool2D(ops.Relu(x[0]), ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
		{name: "MaxPoolOfBiasAddRelu", shapes: []ops.Shape{s(2, 5, 5, 4), s(4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.MaxPool2D(ops.Relu(ops.BiasAdd(x[0], x[1])), ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "MaxPoolOfReluUsedTwice", shapes: []ops.Shape{s(1, 4, 4, 2), s(2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			r := ops.Relu(ops.BiasAdd(x[0], x[1]))
			p := ops.MaxPool2D(r, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
			return ops.Add(ops.Sum(p, false), ops.Sum(ops.Square(r), false))
		}},
		{name: "Conv2DBiasIm2col", shapes: []ops.Shape{s(2, 5, 5, 2), s(3, 3, 2, 3), s(3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BiasAdd(ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"}), x[2])
		}},
		{name: "Conv2DBiasReluTapClasses", shapes: []ops.Shape{s(3, 2, 2, 3), s(3, 3, 3, 4), s(4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Relu(ops.BiasAdd(ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"}), x[2]))
		}},
		{name: "MaxPoolOfConv2DBiasRelu", shapes: []ops.Shape{s(2, 6, 6, 2), s(3, 3, 2, 3), s(3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			r := ops.Relu(ops.BiasAdd(ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"}), x[2]))
			return ops.MaxPool2D(r, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
		{name: "Conv2DTapClasses2x2", shapes: []ops.Shape{s(3, 2, 2, 3), s(3, 3, 3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"})
		}},
		{name: "Conv2DTapClasses4x3", shapes: []ops.Shape{s(2, 4, 3, 2), s(3, 3, 2, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"})
		}},
		{name: "Conv2DTapClassesStrided", shapes: []ops.Shape{s(2, 4, 4, 2), s(3, 3, 2, 3)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{2, 2}, Padding: "same"})
		}},
		{name: "Conv2DTapClasses1x1Map5x5Kernel", shapes: []ops.Shape{s(2, 1, 2, 2), s(5, 5, 2, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Conv2D(x[0], x[1], ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"})
		}},
		{name: "BatchNormTrain", shapes: []ops.Shape{s(4, 3, 2, 5), s(5), s(5)}, gen: spread, tol: 3e-3, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bnTrain(x[0], x[1], x[2], false, false)
		}},
		{name: "BatchNormTrainRelu", shapes: []ops.Shape{s(6, 4), s(4), s(4)}, gen: spread, tol: 3e-3, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bnTrain(x[0], x[1], x[2], true, false)
		}},
		{name: "BatchNormTrainSynchronized", shapes: []ops.Shape{s(5, 2, 3), s(3), s(3)}, gen: spread, tol: 3e-3, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bnTrain(x[0], x[1], x[2], true, true)
		}},
		{name: "BatchNormTrainNoGammaBeta", shapes: []ops.Shape{s(7, 3)}, gen: spread, tol: 3e-3, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bnTrain(x[0], ops.Tensor{}, ops.Tensor{}, false, false)
		}},
		{name: "BatchNormTrainWide", shapes: []ops.Shape{s(3, 2, 2, 40), s(40), s(40)}, gen: spread, tol: 3e-3, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bnTrain(x[0], x[1], x[2], true, false)
		}},
		{name: "BatchNormInference", shapes: []ops.Shape{s(4, 3), s(3), s(3)}, gen: spread, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			mom := ops.BatchNormPack(tr.Constant(s(3), []float32{0.5, -1, 2}), tr.Constant(s(3), []float32{1, 0.25, 4}))
			return ops.Relu(ops.BatchNormApply(x[0], mom, x[1], x[2], ops.BatchNormAttrs{Epsilon: 1e-3}))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
}

// TestGradientsBF16Fused checks the ops that round their output to
// bfloat16 (CastToBFloat16 of their output, fused; cast_fused.go) by
// central differences of the same ops without the rounding, with
// bfloat16 weights on the output (so that the cast's gradient, the
// weights rounded, changes nothing). Where an input is cast too, its
// gradient is the rounded one of the fused input gradient
// (Conv2DBackpropInput, BatchNormGradInput, MaxPool2DGrad, the sum of two
// gradient terms): within a bfloat16 rounding of the differences.
func TestGradientsBF16Fused(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	spread := func(_ int, r *rand.Rand) float32 { return float32(r.NormFloat64()*1.5 + 0.3) }
	same := ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"}
	valid := ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"}
	conv := func(a ops.Conv2DAttrs, x []ops.Tensor) ops.Tensor {
		return ops.BiasAdd(ops.Conv2D(x[0], x[1], a), x[2])
	}
	pool := ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}
	// x[0] in bfloat16, so that its cast changes nothing at the point
	// differenced
	bf16First := func(g func(int, *rand.Rand) float32) func(int, *rand.Rand) float32 {
		return func(i int, r *rand.Rand) float32 {
			v := r.Float32()*2 - 1
			if g != nil {
				v = g(i, r)
			}
			if i == 0 {
				v = ops.RoundBFloat16(v)
			}
			return v
		}
	}
	cases := []gradCase{
		{name: "Conv2DBiasRoundIm2col", shapes: []ops.Shape{s(2, 5, 5, 2), s(3, 3, 2, 3), s(3)},
			build:  func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.CastToBFloat16(conv(valid, x)) },
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return conv(valid, x) }},
		{name: "Conv2DBiasReluRoundTapClasses", shapes: []ops.Shape{s(3, 2, 2, 3), s(3, 3, 3, 4), s(4)},
			build:  func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.CastToBFloat16(ops.Relu(conv(same, x))) },
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Relu(conv(same, x)) }},
		{name: "ReluOfConv2DBiasRound", shapes: []ops.Shape{s(2, 4, 4, 2), s(3, 3, 2, 3), s(3)},
			build:  func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Relu(ops.CastToBFloat16(conv(same, x))) },
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Relu(conv(same, x)) }},
		{name: "BatchNormApplyRound", shapes: []ops.Shape{s(4, 3, 2, 5), s(5), s(5)}, gen: spread, tol: 3e-3,
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.CastToBFloat16(bnTrain(x[0], x[1], x[2], false, false))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return bnTrain(x[0], x[1], x[2], false, false) }},
		{name: "ReluOfBatchNormApplyRound", shapes: []ops.Shape{s(6, 4), s(4), s(4)}, gen: spread, tol: 3e-3,
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.Relu(ops.CastToBFloat16(bnTrain(x[0], x[1], x[2], false, false)))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return bnTrain(x[0], x[1], x[2], true, false) }},
		{name: "AddReluRound", shapes: []ops.Shape{s(3, 7), s(3, 7)},
			build:  func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.CastToBFloat16(ops.AddRelu(x[0], x[1])) },
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.AddRelu(x[0], x[1]) }},
		{name: "ReluOfAddRound", shapes: []ops.Shape{s(3, 7), s(3, 7)},
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.Relu(ops.CastToBFloat16(ops.Add(x[0], x[1])))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.AddRelu(x[0], x[1]) }},
		// input gradients rounded as they are written
		{name: "Conv2DBackpropInputRound", shapes: []ops.Shape{s(2, 5, 5, 2), s(3, 3, 2, 3), s(3)}, gen: bf16First(nil), tol: 6e-3,
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.CastToBFloat16(conv(same, []ops.Tensor{ops.CastToBFloat16(x[0]), x[1], x[2]}))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return conv(same, x) }},
		{name: "BatchNormGradInputRound", shapes: []ops.Shape{s(4, 3, 2, 5), s(5), s(5)}, gen: bf16First(spread), tol: 6e-3,
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.CastToBFloat16(bnTrain(ops.CastToBFloat16(x[0]), x[1], x[2], true, false))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return bnTrain(x[0], x[1], x[2], true, false) }},
		{name: "MaxPool2DGradRound", shapes: []ops.Shape{s(2, 5, 5, 3)}, gen: bf16First(nil), tol: 6e-3,
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.CastToBFloat16(ops.MaxPool2D(ops.CastToBFloat16(x[0]), pool))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.MaxPool2D(x[0], pool) }},
		// a rounded value read twice: its gradient terms' sum is an Add
		// that rounds
		{name: "GradientSumRound", shapes: []ops.Shape{s(3, 5)}, gen: bf16First(nil), tol: 6e-3,
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				v := ops.CastToBFloat16(x[0])
				return ops.CastToBFloat16(ops.Mul(ops.CastToBFloat16(ops.Square(v)), ops.CastToBFloat16(ops.Scale(v, 3))))
			},
			smooth: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Mul(ops.Square(x[0]), ops.Scale(x[0], 3)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
}

// TestBatchNormFusedMatchesComposite compares the fused training batch norm
// (forward and gradients) with the same function composed from the basic
// ops, on a tensor large enough for the parallel partial sums.
func TestBatchNormFusedMatchesComposite(t *testing.T) {
	const n, h, w, c = 8, 6, 6, 37
	r := rand.New(rand.NewPCG(9, 9))
	mk := func(size int, scale, shift float64) []float32 {
		v := make([]float32, size)
		for i := range v {
			v[i] = float32(r.NormFloat64()*scale + shift)
		}
		return v
	}
	xv := ops.NewVariable("x", ops.Shape{n, h, w, c}, mk(n*h*w*c, 2, 1), true)
	gv := ops.NewVariable("gamma", ops.Shape{c}, mk(c, 0.5, 1), true)
	bv := ops.NewVariable("beta", ops.Shape{c}, mk(c, 0.5, 0), true)
	wts := mk(n*h*w*c, 1, 0)
	run := func(fused bool) [][]float32 {
		tr := ops.NewTrace(true, 0, 1)
		x, g, b := tr.Read(xv), tr.Read(gv), tr.Read(bv)
		var y ops.Tensor
		if fused {
			y = bnTrain(x, g, b, true, false)
		} else {
			mean := ops.Mean(x, false, 0, 1, 2)
			variance := ops.Relu(ops.Sub(ops.Mean(ops.Square(x), false, 0, 1, 2), ops.Square(mean)))
			scale := ops.Mul(ops.Rsqrt(ops.AddScalar(variance, 1e-3)), g)
			y = ops.Relu(ops.Add(ops.Mul(ops.Sub(x, mean), scale), b))
		}
		out, _ := runWithGradients(t, tr, y, wts, []*ops.Variable{xv, gv, bv})
		return out
	}
	fused, comp := run(true), run(false)
	for k, name := range []string{"y", "dx", "dgamma", "dbeta"} {
		var maxAbs float64
		for _, v := range comp[k] {
			maxAbs = math.Max(maxAbs, math.Abs(float64(v)))
		}
		for i := range comp[k] {
			if d := math.Abs(float64(fused[k][i] - comp[k][i])); d > 2e-4*math.Max(1, maxAbs) {
				t.Fatalf("%s[%d]: fused %v, composite %v", name, i, fused[k][i], comp[k][i])
			}
		}
	}
}

// runWithGradients compiles and runs y and the gradients of
// L = sum(y * wts) with respect to vars, and returns copies of their
// values (y first) and the program.
func runWithGradients(t *testing.T, tr *ops.Trace, y ops.Tensor, wts []float32, vars []*ops.Variable) ([][]float32, *engine.Program) {
	t.Helper()
	loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), wts)), false)
	grads, err := ops.Gradients(loss, vars)
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, append([]ops.Tensor{y}, grads...))
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, len(vals))
	for i, v := range vals {
		out[i] = append([]float32(nil), v.Data...)
	}
	return out, p
}
