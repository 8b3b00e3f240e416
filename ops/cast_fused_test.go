package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// bf16FusionCase is a graph as a mixed_bfloat16 model builds it (inputs,
// weights and layer outputs cast) whose casts of the outputs of kinds
// become those ops rounding their output themselves.
type bf16FusionCase struct {
	name   string
	shapes []ops.Shape
	kinds  []string
	build  func(tr *ops.Trace, x []ops.Tensor) ops.Tensor
}

// roundingKind is the kind of the op that rounds the output of a step of
// kind k: k itself, but gorgonia's sum of gradient terms (AddN in a plan)
// becomes an Add.
func roundingKind(k string) string {
	if k == "AddN" {
		return "Add"
	}
	return k
}

// bf16 is CastToBFloat16 (short, for the case tables).
func bf16(x ops.Tensor) ops.Tensor { return ops.CastToBFloat16(x) }

// bf16FusionCases lists the fused producers: Conv2DBias (and its ReLU)
// on every convolution path with Conv2DBackpropInput's paths behind it,
// BatchNormApply and BatchNormGradInput, AddRelu, MaxPool2DGrad (plain
// and masked by a ReLU).
func bf16FusionCases() []bf16FusionCase {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	var cases []bf16FusionCase
	type convCase struct {
		name                               string
		n, h, w, cin, k, cout, stride, dil int
		padding                            string
	}
	for _, c := range []convCase{
		{"im2col", 6, 13, 13, 8, 3, 16, 1, 1, "valid"},
		{"first", 16, 14, 14, 1, 3, 32, 1, 1, "valid"},
		{"taps", 8, 8, 8, 16, 3, 24, 1, 1, "same"},
		{"tapsStrided", 8, 4, 4, 16, 3, 32, 2, 1, "same"},
		{"1x1", 5, 6, 6, 12, 1, 20, 1, 1, "same"},
		{"dilated", 4, 9, 9, 3, 3, 8, 1, 2, "same"},
		{"packed", 4, 8, 8, 32, 3, 32, 1, 1, "same"}, // bfloat16 on packed operands (conv_forward_bf16.go)
	} {
		for _, precision := range []string{"", ops.PrecisionBFloat16} {
			attrs := ops.Conv2DAttrs{Strides: [2]int{c.stride, c.stride}, Dilations: [2]int{c.dil, c.dil}, Padding: c.padding, Precision: precision}
			conv := func(x []ops.Tensor) ops.Tensor {
				return ops.BiasAdd(ops.Conv2D(bf16(x[0]), bf16(x[1]), attrs), bf16(x[2]))
			}
			shapes := []ops.Shape{s(c.n, c.h, c.w, c.cin), s(c.k, c.k, c.cin, c.cout), s(c.cout)}
			name := fmt.Sprintf("Conv%s/%q", c.name, precision)
			cases = append(cases,
				bf16FusionCase{name + "/bias", shapes, []string{"Conv2DBias", "Conv2DBackpropInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
					return bf16(conv(x))
				}},
				// a Conv2D layer with activation "relu"
				bf16FusionCase{name + "/relu", shapes, []string{"Conv2DBiasRelu", "Conv2DBackpropInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
					return bf16(ops.Relu(conv(x)))
				}},
				// a ReLU layer after it: Relu of the rounded op
				bf16FusionCase{name + "/reluLayer", shapes, []string{"Conv2DBiasRelu", "Conv2DBackpropInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
					return bf16(ops.Relu(bf16(conv(x))))
				}},
				// and a max pooling layer
				bf16FusionCase{name + "/reluPool", shapes, []string{"Conv2DBiasRelu", "Conv2DBackpropInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
					return bf16(ops.MaxPool2D(bf16(ops.Relu(conv(x))), ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "same"}))
				}},
			)
		}
	}
	bn := func(x []ops.Tensor, sync bool) ops.Tensor {
		return bnTrain(bf16(x[0]), x[1], x[2], false, sync)
	}
	bnShapes := []ops.Shape{s(8, 5, 5, 37), s(37), s(37)}
	cases = append(cases,
		bf16FusionCase{"BatchNorm", bnShapes, []string{"BatchNormApply", "BatchNormGradInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(bn(x, false))
		}},
		// BatchNormalization then Activation("relu") layers
		bf16FusionCase{"BatchNormReluLayer", bnShapes, []string{"BatchNormApply", "BatchNormGradInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(ops.Relu(bf16(bn(x, false))))
		}},
		bf16FusionCase{"BatchNormReluSynchronized", bnShapes, []string{"BatchNormApply", "BatchNormGradInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(ops.Relu(bn(x, true)))
		}},
		bf16FusionCase{"BatchNormNoGammaBeta", []ops.Shape{s(300, 7)}, []string{"BatchNormApply", "BatchNormGradInput"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(ops.Relu(bf16(bnTrain(bf16(x[0]), ops.Tensor{}, ops.Tensor{}, false, false))))
		}},
		bf16FusionCase{"BatchNormInference", []ops.Shape{s(64, 3), s(3), s(3)}, []string{"BatchNormApply", "BatchNormGradInput"}, func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			mom := ops.BatchNormPack(tr.Constant(s(3), []float32{0.5, -1, 2}), tr.Constant(s(3), []float32{1, 0.25, 4}))
			return bf16(ops.Relu(bf16(ops.BatchNormApply(bf16(x[0]), mom, x[1], x[2], ops.BatchNormAttrs{Epsilon: 1e-3}))))
		}},
		// the residual sum of a ResNet block, then its ReLU layer
		bf16FusionCase{"AddReluLayer", []ops.Shape{s(4, 6, 6, 20), s(4, 6, 6, 20)}, []string{"AddRelu"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(ops.Relu(bf16(ops.Add(bf16(x[0]), bf16(x[1])))))
		}},
		bf16FusionCase{"AddRelu", []ops.Shape{s(3, 7000), s(3, 7000)}, []string{"AddRelu"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(ops.AddRelu(x[0], x[1]))
		}},
		// overlapping windows: the scatter of a rounded gradient sums
		bf16FusionCase{"MaxPool2DGrad", []ops.Shape{s(6, 11, 11, 24)}, []string{"MaxPool2DGrad"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return bf16(ops.MaxPool2D(bf16(x[0]), ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}))
		}},
		// the ReLU mask in the scatter (reluGrad of a pooled ReLU), of an
		// unrounded output gradient
		bf16FusionCase{"MaxPool2DGradMasked", []ops.Shape{s(6, 8, 8, 24)}, []string{"MaxPool2DGrad"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.MaxPool2D(ops.Relu(bf16(x[0])), ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		}},
		// a rounded value read by two layers: its gradient terms' sum
		bf16FusionCase{"GradientSum", []ops.Shape{s(40, 300)}, []string{"AddN"}, func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			v := bf16(ops.Exp(bf16(x[0])))
			return bf16(ops.Mul(bf16(ops.Square(v)), bf16(ops.Scale(v, 3))))
		}},
	)
	return cases
}

// runBF16Case runs c's graph (y and the gradients of sum(y*wts) with
// respect to every input) with the fusion on or off, and returns the
// values and the plan's steps.
func runBF16Case(t *testing.T, c bf16FusionCase, fused bool) ([][]float32, *engine.Plan) {
	t.Helper()
	defer ops.SetBF16Fusion(ops.SetBF16Fusion(fused))
	r := rand.New(rand.NewPCG(16, uint64(len(c.name))))
	vars := make([]*ops.Variable, len(c.shapes))
	for i, s := range c.shapes {
		d := make([]float32, s.Size())
		for j := range d {
			d[j] = float32(r.NormFloat64()*1.5 + 0.2)
		}
		vars[i] = ops.NewVariable(fmt.Sprint("v", i), s, d, true)
	}
	tr := ops.NewTrace(true, 0, 1)
	xs := make([]ops.Tensor, len(vars))
	for i, v := range vars {
		xs[i] = tr.Read(v)
	}
	y := c.build(tr, xs)
	wts := make([]float32, y.Shape().Size())
	for i := range wts {
		wts[i] = float32(r.NormFloat64())
	}
	out, p := runWithGradients(t, tr, y, wts, vars)
	return out, p.Plan()
}

// castsOf returns, for each kind, how many CastToBFloat16 steps read the
// output of a step of that kind, and how many steps of it round their
// output themselves.
func castsOf(pl *engine.Plan) (casts, rounding map[string]int) {
	producer := map[int]string{}
	casts, rounding = map[string]int{}, map[string]int{}
	for _, st := range pl.Steps {
		producer[st.Out] = st.Kind
		if st.Op != nil && st.Op.RoundsBFloat16() {
			rounding[st.Kind]++
		}
	}
	for _, v := range pl.Views {
		producer[v.Out] = producer[v.In]
	}
	for _, st := range pl.Steps {
		if st.Kind == "CastToBFloat16" {
			casts[producer[st.Ins[0]]]++
		}
	}
	return casts, rounding
}

// TestBF16CastFusionBitwise: CastToBFloat16 of the output of a
// convolution with its bias, a batch normalization, its input gradient,
// a residual AddRelu, a max pooling's gradient or a convolution's input
// gradient is that op rounding its output as it writes it; the output and
// the gradients with respect to every input are bitwise those of the
// separate cast, and no cast step of those ops' outputs is left.
func TestBF16CastFusionBitwise(t *testing.T) {
	for _, c := range bf16FusionCases() {
		t.Run(c.name, func(t *testing.T) {
			want, plain := runBF16Case(t, c, false)
			got, fused := runBF16Case(t, c, true)
			pc, pr := castsOf(plain)
			fc, fr := castsOf(fused)
			for _, k := range c.kinds {
				rk := roundingKind(k)
				if pc[k] == 0 || pr[rk] != 0 {
					t.Errorf("unfused: %d casts of %s outputs, %d %s steps rounding: want casts only", pc[k], k, pr[rk], rk)
				}
				if fc[k] != 0 || fr[rk] == 0 {
					t.Errorf("fused: %d casts of %s outputs, %d %s steps rounding: want no cast", fc[k], k, fr[rk], rk)
				}
			}
			for i := range want {
				if len(got[i]) != len(want[i]) {
					t.Fatalf("output %d: %d values fused, %d unfused", i, len(got[i]), len(want[i]))
				}
				for j := range want[i] {
					if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
						t.Fatalf("output %d (0: y, then the gradients) [%d]: fused %v, unfused %v", i, j, got[i][j], want[i][j])
					}
				}
			}
		})
	}
}

// TestBF16RoundingOpNaN: an op that rounds its output keeps what the cast
// does with NaN (quiet, sign and payload top kept), ±inf, overflow to inf
// and subnormals, bit for bit.
func TestBF16RoundingOpNaN(t *testing.T) {
	specials := []float32{
		float32(math.NaN()), math.Float32frombits(0xff800001), math.Float32frombits(0x7fc12345),
		float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32,
		math.Float32frombits(0x00000001), math.Float32frombits(0x80012345), 1 + 1.0/256, 1 + 3.0/256, -0,
	}
	const n = 3000
	a, b := make([]float32, n), make([]float32, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range a {
		a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		if i%7 == 0 {
			a[i], b[i] = specials[i%len(specials)], 0
		}
	}
	tr := ops.NewTrace(false, 0, 1)
	y := bf16(ops.AddRelu(tr.Constant(ops.Shape{n}, a), tr.Constant(ops.Shape{n}, b)))
	if op := y.Node().Op().(*ops.Op); op.Kind() != "AddRelu" || !op.RoundsBFloat16() {
		t.Fatalf("the cast is a %s op (rounding %v)", op.Kind(), op.RoundsBFloat16())
	}
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	relu := ops.NewTrace(false, 0, 1)
	want := make([]float32, n)
	pr, err := engine.Compile(relu, []ops.Tensor{ops.AddRelu(relu.Constant(ops.Shape{n}, a), relu.Constant(ops.Shape{n}, b))})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := pr.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range rv[0].Data {
		want[i] = ops.RoundBFloat16(v)
	}
	for i := range want {
		if math.Float32bits(vals[0].Data[i]) != math.Float32bits(want[i]) {
			t.Fatalf("[%d] = %#08x, RoundBFloat16 of AddRelu %#08x", i, math.Float32bits(vals[0].Data[i]), math.Float32bits(want[i]))
		}
	}
}

// TestBF16RoundedOpIsExact: a cast of a rounding op's output is that
// output (no view, no op), as a cast of a cast is.
func TestBF16RoundedOpIsExact(t *testing.T) {
	tr := ops.NewTrace(true, 0, 1)
	a := tr.Constant(ops.Shape{2, 3}, []float32{1, -2, 3, 4, -5, 6})
	y := bf16(ops.AddRelu(a, a))
	if z := bf16(y); z != y {
		t.Errorf("a cast of a rounded AddRelu is a %s op", z.Node().Op().(*ops.Op).Kind())
	}
	if z := bf16(ops.Reshape(y, ops.Shape{6})); z.Node().Op().(*ops.Op).Kind() != "CastToBFloat16Exact" {
		t.Errorf("a cast of a Reshape of a rounded op is a %s op, want a view", z.Node().Op().(*ops.Op).Kind())
	}
}

// TestBF16CastNotFusedEagerly: in an eager trace the producer has run when
// the cast is made; the cast stays a cast (the rounding variant would run
// the producer again).
func TestBF16CastNotFusedEagerly(t *testing.T) {
	tr := ops.NewEagerTrace(false, 1)
	a := tr.Constant(ops.Shape{2, 3}, []float32{1.001, -2, 3, 4, -5, 6.01})
	y := bf16(ops.AddRelu(a, a))
	if op := y.Node().Op().(*ops.Op); op.Kind() != "CastToBFloat16" || op.RoundsBFloat16() {
		t.Errorf("an eager cast is a %s op (rounding %v)", op.Kind(), op.RoundsBFloat16())
	}
}
