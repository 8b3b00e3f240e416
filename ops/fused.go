package ops

import "github.com/gokeras/gokeras/internal/vec"

// fuseRelu returns a fused op computing Relu(x) in one pass when x was
// produced by an op that can apply the ReLU while it writes its output:
// BiasAdd (BiasAddRelu), a convolution with its bias (Conv2DBiasRelu,
// conv_bias.go), a same-shape Add (AddRelu, the residual sum of a ResNet
// block) or BatchNormApply (with Relu set). The producer stays in
// the graph; executors skip it when nothing else reads it.
func fuseRelu(x Tensor) (Tensor, bool) {
	if x.n == nil {
		return Tensor{}, false
	}
	op, ok := x.n.Op().(*Op)
	if !ok {
		return Tensor{}, false
	}
	in := func() []Tensor {
		ch := Children(x.tr.g, x.n)
		ts := make([]Tensor, len(ch))
		for i, c := range ch {
			ts[i] = x.tr.wrap(c)
		}
		return ts
	}
	switch op.name {
	case "CastToBFloat16":
		// Under mixed_bfloat16 a ReLU layer's input is a layer's rounded
		// output: Relu(CastToBFloat16(p)) = CastToBFloat16(Relu(p))
		// (rounding keeps signs and zero), so the ReLU goes into p's op.
		// The gradient masks by p's ReLU output > 0 instead of the
		// rounded one's, which differ only below bfloat16's smallest
		// subnormal.
		if inner, ok := fuseRelu(in()[0]); ok {
			return CastToBFloat16(inner), true
		}
	case "BiasAdd":
		ts := in()
		return BiasAddRelu(ts[0], ts[1]), true
	case "Conv2DBias":
		return fuseConvBiasRelu(x, op), true
	case "Add":
		ts := in()
		if ts[0].Shape().Equal(ts[1].Shape()) {
			return AddRelu(ts[0], ts[1]), true
		}
	case "BatchNormApply":
		a := op.attrs.(bnApplyAttrs)
		if a.Relu {
			return Tensor{}, false
		}
		ts := in()
		gamma, beta := optionalInputs(ts, 2, a.Gamma, a.Beta)
		a.BatchNormAttrs.Relu = true
		return batchNormApply(ts[0], ts[1], gamma, beta, a.BatchNormAttrs, op.bf16), true
	}
	return Tensor{}, false
}

// BiasAddRelu returns max(x + b, 0) (NaN where x + b is NaN, as [Relu])
// with the vector b added to the last axis of x, in one pass: Relu(BiasAdd(x, b)) fused (Relu does this by
// itself when its input is a BiasAdd). The gradient masks dy once and
// sums it for b.
func BiasAddRelu(x, b Tensor) Tensor {
	tr := sameTrace("BiasAddRelu", x, b)
	c := biasChannels("BiasAddRelu", x, b)
	xs := x.Shape()
	rows := xs.Size() / c
	return tr.apply(&Op{
		name: "BiasAddRelu", out: xs.Clone(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			src, bias := in[0][:rows*c], in[1][:c]
			parallelRows(rows, c, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					vec.AddRelu(o[r*c:(r+1)*c], src[r*c:(r+1)*c], bias)
				}
			})
		},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			g, db := biasEpilogueGrad(y, dy, true)
			return []Tensor{g, db}
		},
	}, x, b)
}

// AddRelu returns max(a + b, 0) (NaN where a + b is NaN, as [Relu]) for
// a and b of one shape, in one pass.
func AddRelu(a, b Tensor) Tensor { return addRelu(a, b, false) }

// addRelu is AddRelu, rounding its output to bfloat16 as it computes it
// when round (cast_fused.go).
func addRelu(a, b Tensor, round bool) Tensor {
	tr := sameTrace("AddRelu", a, b)
	if !a.Shape().Equal(b.Shape()) {
		fail("AddRelu", "shapes %v and %v differ", a.Shape(), b.Shape())
	}
	op := &Op{
		name: "AddRelu", out: a.Shape().Clone(), attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			x, y := in[0][:len(o)], in[1][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				if round {
					vec.AddReluRoundBF16(o[lo:hi], x[lo:hi], y[lo:hi])
				} else {
					vec.AddRelu(o[lo:hi], x[lo:hi], y[lo:hi])
				}
			})
		},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			g := reluGrad(y, castDyIf(round, dy))
			return []Tensor{g, g}
		},
		bf16: round,
	}
	if !round {
		op.roundedBF16 = func(in []Tensor) Tensor { return addRelu(in[0], in[1], true) }
	}
	return tr.apply(op, a, b)
}
