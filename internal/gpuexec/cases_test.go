package gpuexec_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// opCase is one op (or a small composition) on inputs held in variables,
// so that its gradient ops are built too: the program's outputs are the
// op's output and, for the inputs in wrt, the gradients of sum(out·R) for
// a random constant R.
type opCase struct {
	name     string
	shapes   []ops.Shape
	fill     []func(r *rand.Rand, i int) float32 // per input; nil: normal
	wrt      []int
	training bool
	build    func(tr *ops.Trace, in []ops.Tensor) ops.Tensor
}

func normal(r *rand.Rand, _ int) float32   { return float32(r.NormFloat64()) }
func positive(r *rand.Rand, _ int) float32 { return 0.1 + 2*r.Float32() }
func intsBelow(n int) func(*rand.Rand, int) float32 {
	return func(r *rand.Rand, _ int) float32 { return float32(r.IntN(n)) }
}
func probs(r *rand.Rand, _ int) float32 { return r.Float32() }

func unaryCase(name string, fill func(*rand.Rand, int) float32, f func(ops.Tensor) ops.Tensor) opCase {
	return opCase{name: name, shapes: []ops.Shape{{6, 7}}, fill: []func(*rand.Rand, int) float32{fill}, wrt: []int{0},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return f(in[0]) }}
}

func binaryCase(name string, a, b ops.Shape, f func(x, y ops.Tensor) ops.Tensor, fillB func(*rand.Rand, int) float32) opCase {
	return opCase{name: name, shapes: []ops.Shape{a, b}, fill: []func(*rand.Rand, int) float32{normal, fillB}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return f(in[0], in[1]) }}
}

var conv = ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{1, 1}, Padding: "same"}

// opCases covers every op kind of package ops (TestCasesCoverEveryOpKind
// checks it against the sources).
var opCases = []opCase{
	binaryCase("Add", ops.Shape{4, 5}, ops.Shape{4, 5}, ops.Add, normal),
	binaryCase("AddBroadcast", ops.Shape{3, 4, 5}, ops.Shape{5}, ops.Add, normal),
	binaryCase("Sub", ops.Shape{4, 5}, ops.Shape{4, 1}, ops.Sub, normal),
	binaryCase("Mul", ops.Shape{2, 3, 4}, ops.Shape{1, 3, 1}, ops.Mul, normal),
	binaryCase("Div", ops.Shape{4, 5}, ops.Shape{5}, ops.Div, positive),
	binaryCase("Maximum", ops.Shape{4, 5}, ops.Shape{4, 5}, ops.Maximum, normal),
	unaryCase("Neg", normal, ops.Neg),
	unaryCase("Scale", normal, func(x ops.Tensor) ops.Tensor { return ops.Scale(x, 2.5) }),
	unaryCase("AddScalar", normal, func(x ops.Tensor) ops.Tensor { return ops.AddScalar(x, -0.75) }),
	unaryCase("OneMinus", normal, ops.OneMinus),
	unaryCase("Exp", normal, ops.Exp),
	unaryCase("Log", positive, ops.Log),
	unaryCase("Sqrt", positive, ops.Sqrt),
	unaryCase("Rsqrt", positive, ops.Rsqrt),
	unaryCase("Square", normal, ops.Square),
	unaryCase("Abs", normal, ops.Abs),
	unaryCase("Sign", normal, ops.Sign),
	unaryCase("Sin", normal, ops.Sin),
	unaryCase("Cos", normal, ops.Cos),
	// Floor has no gradient (tf.floor's is None): the case's own passes
	// through the identity beside it.
	unaryCase("Floor", normal, func(x ops.Tensor) ops.Tensor { return ops.Add(ops.Floor(ops.Scale(x, 3)), x) }),
	// keras.layers.Equalization's lookup over 2x4x4 images of 3 channels:
	// levels 0..255, the last channel constant, so it is passed through
	// (EqualizeHistogramPassed, the gradient's kind).
	{name: "EqualizeHistogram", shapes: []ops.Shape{{2, 4, 4, 3}}, wrt: []int{0},
		fill: []func(*rand.Rand, int) float32{func(r *rand.Rand, i int) float32 {
			if i%3 == 2 {
				return 77
			}
			return float32(r.IntN(256))
		}},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.EqualizeHistogram(in[0], 256) }},
	unaryCase("Clip", normal, func(x ops.Tensor) ops.Tensor { return ops.Clip(x, -0.5, 0.7) }),
	unaryCase("Softplus", normal, ops.Log1pExp),
	unaryCase("Relu", normal, ops.Relu),
	unaryCase("Sigmoid", normal, ops.Sigmoid),
	unaryCase("Tanh", normal, ops.Tanh),
	unaryCase("Softmax", normal, ops.Softmax),
	unaryCase("LogSoftmax", normal, ops.LogSoftmax),
	unaryCase("Elu", normal, func(x ops.Tensor) ops.Tensor { return ops.Elu(x, 0.7) }),
	unaryCase("Selu", normal, ops.Selu),
	unaryCase("LeakyRelu", normal, func(x ops.Tensor) ops.Tensor { return ops.LeakyRelu(x, 0.3) }),
	unaryCase("Gelu", normal, func(x ops.Tensor) ops.Tensor { return ops.Gelu(x, false) }),
	unaryCase("GeluTanh", normal, func(x ops.Tensor) ops.Tensor { return ops.Gelu(x, true) }),
	unaryCase("Silu", normal, ops.Silu),
	unaryCase("Softsign", normal, ops.Softsign),
	unaryCase("HardSigmoid", func(r *rand.Rand, _ int) float32 { return float32(4 * r.NormFloat64()) }, ops.HardSigmoid),
	unaryCase("Mish", normal, ops.Mish),
	unaryCase("Reshape", normal, func(x ops.Tensor) ops.Tensor { return ops.Square(ops.Reshape(x, ops.Shape{7, 6})) }),
	unaryCase("Reverse", normal, func(x ops.Tensor) ops.Tensor { return ops.Reverse(x, 1) }),
	unaryCase("SumAxis", normal, func(x ops.Tensor) ops.Tensor { return ops.Sum(x, false, 0) }),
	unaryCase("MeanAll", normal, func(x ops.Tensor) ops.Tensor { return ops.Mean(x, false) }),
	unaryCase("Max", normal, func(x ops.Tensor) ops.Tensor { return ops.Max(x, true, 1) }),
	unaryCase("BroadcastTo", normal, func(x ops.Tensor) ops.Tensor { return ops.BroadcastTo(x, ops.Shape{3, 6, 7}) }),
	unaryCase("Slice", normal, func(x ops.Tensor) ops.Tensor { return ops.Slice(x, []int{1, 2}, []int{3, 4}) }),
	unaryCase("Pad", normal, func(x ops.Tensor) ops.Tensor { return ops.Pad(x, [][2]int{{1, 0}, {2, 3}}) }),
	unaryCase("AllReduceSum", normal, ops.AllReduceSum),
	binaryCase("Concat", ops.Shape{4, 3}, ops.Shape{4, 5}, func(a, b ops.Tensor) ops.Tensor { return ops.Concat(1, a, b) }, normal),
	{name: "MatMul", shapes: []ops.Shape{{5, 7}, {7, 3}}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.MatMul(in[0], in[1], false, false) }},
	{name: "MatMulTATB", shapes: []ops.Shape{{7, 5}, {3, 7}}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.MatMul(in[0], in[1], true, true) }},
	{name: "DenseRelu", shapes: []ops.Shape{{9, 16}, {16, 10}, {10}}, wrt: []int{0, 1, 2},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.Relu(ops.BiasAdd(ops.MatMul(in[0], in[1], false, false), in[2]))
		}},
	binaryCase("BiasAdd", ops.Shape{6, 4}, ops.Shape{4}, ops.BiasAdd, normal),
	binaryCase("BiasAddRelu", ops.Shape{2, 3, 4}, ops.Shape{4}, ops.BiasAddRelu, normal),
	binaryCase("AddRelu", ops.Shape{5, 6}, ops.Shape{5, 6}, ops.AddRelu, normal),
	{name: "SparseSoftmaxXent", shapes: []ops.Shape{{8}, {8, 10}}, wrt: []int{1},
		fill: []func(*rand.Rand, int) float32{intsBelow(10), normal},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.SparseSoftmaxCrossEntropyWithLogits(in[0], in[1])
		}},
	{name: "SoftmaxXent", shapes: []ops.Shape{{8, 10}, {8, 10}}, wrt: []int{1},
		fill: []func(*rand.Rand, int) float32{probs, normal},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.SoftmaxCrossEntropyWithLogits(ops.Softmax(in[0]), in[1])
		}},
	{name: "SigmoidXent", shapes: []ops.Shape{{8, 3}, {8, 3}}, wrt: []int{1},
		fill: []func(*rand.Rand, int) float32{probs, normal},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.SigmoidCrossEntropyWithLogits(in[0], in[1])
		}},
	{name: "Gather", shapes: []ops.Shape{{10, 4}, {3, 5}}, wrt: []int{0},
		fill:  []func(*rand.Rand, int) float32{normal, intsBelow(10)},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Gather(in[0], in[1]) }},
	{name: "Conv2D", shapes: []ops.Shape{{2, 7, 6, 3}, {3, 3, 3, 5}}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Conv2D(in[0], in[1], conv) }},
	{name: "Conv2DBias", shapes: []ops.Shape{{2, 7, 6, 3}, {3, 3, 3, 5}, {5}}, wrt: []int{0, 1, 2},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.BiasAdd(ops.Conv2D(in[0], in[1], conv), in[2])
		}},
	{name: "Conv2DBiasRelu", shapes: []ops.Shape{{2, 7, 6, 3}, {3, 3, 3, 5}, {5}}, wrt: []int{0, 1, 2},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.Relu(ops.BiasAdd(ops.Conv2D(in[0], in[1], conv), in[2]))
		}},
	{name: "Conv2DValidStrided", shapes: []ops.Shape{{2, 9, 8, 4}, {3, 2, 4, 6}}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.Conv2D(in[0], in[1], ops.Conv2DAttrs{Strides: [2]int{2, 2}, Dilations: [2]int{1, 1}, Padding: "valid"})
		}},
	{name: "Conv2DSameStrided", shapes: []ops.Shape{{2, 8, 8, 3}, {3, 3, 3, 4}}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.Conv2D(in[0], in[1], ops.Conv2DAttrs{Strides: [2]int{2, 2}, Dilations: [2]int{1, 1}, Padding: "same"})
		}},
	{name: "DepthwiseConv2D", shapes: []ops.Shape{{2, 6, 6, 3}, {3, 3, 3, 2}}, wrt: []int{0, 1},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.DepthwiseConv2D(in[0], in[1], conv) }},
	{name: "ConvBlock", shapes: []ops.Shape{{2, 8, 8, 3}, {3, 3, 3, 4}, {4}}, wrt: []int{0, 1, 2},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			y := ops.Relu(ops.BiasAdd(ops.Conv2D(in[0], in[1], conv), in[2]))
			return ops.MaxPool2D(y, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
	{name: "MaxPool2DSame", shapes: []ops.Shape{{2, 7, 7, 3}}, wrt: []int{0},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.MaxPool2D(in[0], ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"})
		}},
	{name: "AvgPool2D", shapes: []ops.Shape{{2, 6, 6, 3}}, wrt: []int{0},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.AvgPool2D(in[0], ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
	{name: "BatchNormTrain", shapes: []ops.Shape{{4, 3, 3, 5}, {5}, {5}}, wrt: []int{0, 1, 2}, training: true,
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			m := ops.BatchNormMoments(ops.BatchNormSums(in[0]))
			return ops.BatchNormApply(in[0], m, in[1], in[2], ops.BatchNormAttrs{Epsilon: 1e-3, Training: true})
		}},
	{name: "BatchNormShiftedTrain", shapes: []ops.Shape{{4, 3, 3, 5}, {5}, {5}}, wrt: []int{0, 1, 2}, training: true,
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			shift := ops.BatchNormShift(in[0])
			m := ops.BatchNormShiftedMoments(ops.BatchNormShiftedSums(in[0], shift), shift)
			return ops.BatchNormApply(in[0], m, in[1], in[2], ops.BatchNormAttrs{Epsilon: 1e-3, Training: true})
		}},
	{name: "BatchNormInference", shapes: []ops.Shape{{4, 5}, {5}, {5}, {5}, {5}}, wrt: []int{0},
		fill: []func(*rand.Rand, int) float32{normal, normal, positive, normal, normal},
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			m := ops.BatchNormPack(in[1], in[2])
			return ops.BatchNormApply(in[0], m, in[3], in[4], ops.BatchNormAttrs{Epsilon: 1e-3})
		}},
	{name: "Dropout", shapes: []ops.Shape{{6, 7}}, wrt: []int{0}, training: true,
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Dropout(in[0], 0.3) }},
	{name: "RandomCrop", shapes: []ops.Shape{{3, 6, 6, 2}}, wrt: []int{0}, training: true,
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.RandomCrop(in[0], 4, 5) }},
	{name: "RandomFlip", shapes: []ops.Shape{{3, 4, 5, 2}}, wrt: []int{0}, training: true,
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.RandomFlip(in[0], true, true) }},
	{name: "RandomTranslation", shapes: []ops.Shape{{3, 5, 5, 2}}, wrt: []int{0}, training: true,
		build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.RandomTranslation(in[0], [2]int{1, 2}, "reflect", 0)
		}},
}

// buildCase compiles c with inputs and R drawn from seed.
func buildCase(c opCase, seed uint64) (p *engine.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", c.name, r)
		}
	}()
	r := rand.New(rand.NewPCG(seed, 7))
	tr := ops.NewTrace(c.training, 0, seed)
	vars := make([]*ops.Variable, len(c.shapes))
	ins := make([]ops.Tensor, len(c.shapes))
	for i, s := range c.shapes {
		fill := normal
		if i < len(c.fill) && c.fill[i] != nil {
			fill = c.fill[i]
		}
		data := make([]float32, s.Size())
		for j := range data {
			data[j] = fill(r, j)
		}
		vars[i] = ops.NewVariable(fmt.Sprint(c.name, i), s, data, true)
		ins[i] = tr.Read(vars[i])
	}
	out := c.build(tr, ins)
	outs := []ops.Tensor{out}
	if len(c.wrt) > 0 {
		rr := make([]float32, out.Shape().Size())
		for j := range rr {
			rr[j] = normal(r, j)
		}
		loss := ops.Sum(ops.Mul(out, tr.Constant(out.Shape(), rr)), false)
		var wrt []*ops.Variable
		for _, i := range c.wrt {
			wrt = append(wrt, vars[i])
		}
		grads, err := ops.Gradients(loss, wrt)
		if err != nil {
			return nil, fmt.Errorf("%s: gradients: %w", c.name, err)
		}
		for _, g := range grads {
			if !g.IsNone() { // inputs the output does not depend on differentiably
				outs = append(outs, g)
			}
		}
	}
	return engine.Compile(tr, outs)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 13)) }
