package ops

import (
	"os"
	"strings"

	"github.com/gokeras/gokeras/internal/vec"
)

// Under mixed_bfloat16 a layer's output is CastToBFloat16(p): a pass over
// p's output after p wrote it, at memory speed (a quarter of the casts'
// time went to the ResNet's convolution outputs alone). When p's op can
// round as it writes (its rows still in cache), CastToBFloat16 builds that
// variant instead, the same op with RoundsBFloat16 set: Conv2DBias and
// Conv2DBiasRelu round in the convolution's epilogue, BatchNormApply,
// BatchNormGradInput and AddRelu in the vector kernel's registers (vec's
// *RoundBF16 kernels), MaxPool2DGrad by blocks of images after their
// scatter, and Conv2DBackpropInput as it finishes each block of images;
// gorgonia's sum of two gradient terms becomes an Add that rounds.
// The values are bitwise those of the cast (the same rounding as
// roundBFloat16Slice), and so is the gradient: the cast's (dy rounded)
// and then p's. The plain op
// stays in the graph; executors skip it when nothing else reads it, as
// with fuseRelu.
//
// A rounded op's output is bfloat16 (bfloat16Exact): a later cast of it is
// the op itself. Relu of a rounded BatchNormApply or Conv2DBias goes into
// the op as it did into its plain variant (rounding keeps signs and
// zero); the gradient masks by the rounded output > 0, which differs from
// the unrounded one only below bfloat16's smallest subnormal, as
// fuseRelu's of a cast does.

// noBF16Fusion turns the fusion off (tests compare the two;
// GOKERAS_BF16_FUSION=0 at start, to measure or to keep the cast a step of
// its own).
var noBF16Fusion = os.Getenv("GOKERAS_BF16_FUSION") == "0"

// fuseCastBF16 returns the variant of x's op that rounds its output to
// bfloat16, for CastToBFloat16(x), when that op has one. Not in an eager
// trace: x's op has run already, and its rounding variant would run it
// again.
func fuseCastBF16(x Tensor) (Tensor, bool) {
	if noBF16Fusion || x.n == nil || x.tr.eager != nil {
		return Tensor{}, false
	}
	op, ok := x.n.Op().(*Op)
	if !ok {
		return fuseCastGradSum(x)
	}
	if op.bf16 || op.roundedBF16 == nil {
		return Tensor{}, false
	}
	ch := Children(x.tr.g, x.n)
	in := make([]Tensor, len(ch))
	for i, c := range ch {
		in[i] = x.tr.wrap(c)
	}
	return op.roundedBF16(in), true
}

// fuseCastGradSum returns, for CastToBFloat16(x) of gorgonia's "+" of
// two gradient terms of x's shape (what Grad sums for a value read twice;
// the engine runs it as a vector add), an Add that rounds its output:
// the same float32 additions, then the cast's rounding.
func fuseCastGradSum(x Tensor) (Tensor, bool) {
	op := x.n.Op()
	if op == nil { // a variable, a placeholder or a constant
		return Tensor{}, false
	}
	if name := op.String(); name != "+" && !strings.HasPrefix(name, "+ ") {
		return Tensor{}, false
	}
	ch := Children(x.tr.g, x.n)
	if len(ch) != 2 {
		return Tensor{}, false
	}
	a, b := x.tr.wrap(ch[0]), x.tr.wrap(ch[1])
	if !a.Shape().Equal(x.Shape()) || !b.Shape().Equal(x.Shape()) {
		return Tensor{}, false
	}
	return addRoundBF16(a, b), true
}

// addRoundBF16 is a + b for a and b of one shape, rounded to bfloat16 as
// it is computed (an Add that RoundsBFloat16); its gradient is the
// cast's, dy rounded, for both.
func addRoundBF16(a, b Tensor) Tensor {
	tr := sameTrace("Add", a, b)
	return tr.apply(&Op{
		name: "Add", out: a.Shape().Clone(), attrs: binaryAttrs{}, bf16: true,
		fwd: func(o []float32, in [][]float32) {
			x, y := in[0][:len(o)], in[1][:len(o)]
			parallelElems(len(o), func(lo, hi int) { vec.AddRoundBF16(o[lo:hi], x[lo:hi], y[lo:hi]) })
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor {
			g := CastToBFloat16(dy)
			return []Tensor{g, g}
		},
	}, a, b)
}

// roundedBy reports whether x is the output of an op that rounds it to
// bfloat16 (Op.RoundsBFloat16).
func roundedBy(x Tensor) bool {
	if x.n == nil {
		return false
	}
	op, ok := x.n.Op().(*Op)
	return ok && op.bf16
}

// roundBlockFloats bounds the floats an op writes before it rounds them
// (they are still in the core's cache).
const roundBlockFloats = 4 << 10

// roundRowBlock returns how many rows of rowLen floats make one block to
// round (at least one).
func roundRowBlock(rowLen int) int { return max(1, roundBlockFloats/max(rowLen, 1)) }

// roundOn rounds y to bfloat16 in place, on the calling goroutine when
// serial, else split over the cores.
func roundOn(serial bool, y []float32) {
	if serial || len(y) < parMinElems {
		roundBFloat16Slice(y, y)
		return
	}
	parallelElems(len(y), func(lo, hi int) { roundBFloat16Slice(y[lo:hi], y[lo:hi]) })
}

// castDyIf returns dy rounded to bfloat16 when round (the gradient of the
// cast fused into a rounded op), else dy.
func castDyIf(round bool, dy Tensor) Tensor {
	if round {
		return CastToBFloat16(dy)
	}
	return dy
}
