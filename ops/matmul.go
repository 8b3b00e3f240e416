package ops

import (
	"fmt"

	"github.com/gokeras/gokeras/internal/vec"
)

type matMulAttrs struct {
	TransA, TransB bool
	Precision      string // of the GEMM: "" float32, PrecisionBFloat16 (gemm.go)
}

// MatMul returns op(a) · op(b) for rank-2 a and b, where op transposes when
// the flag is set. Inside a layer computing in bfloat16 it and its
// gradients multiply on bfloat16 GEMM kernels (gemm.go).
func MatMul(a, b Tensor, transA, transB bool) Tensor {
	return matMul(a, b, transA, transB, sameTrace("MatMul", a, b).gemmPrecision())
}

// matMul is MatMul with its GEMM precision, which its gradients keep.
func matMul(a, b Tensor, transA, transB bool, precision string) Tensor {
	tr := sameTrace("MatMul", a, b)
	gm := modeOf("MatMul", precision)
	as, bs := a.Shape(), b.Shape()
	if len(as) != 2 || len(bs) != 2 {
		fail("MatMul", "needs rank-2 operands, got %v and %v", as, bs)
	}
	m, k := as[0], as[1]
	if transA {
		m, k = k, m
	}
	k2, n := bs[0], bs[1]
	if transB {
		k2, n = n, k2
	}
	if k != k2 {
		fail("MatMul", "shapes %v%s and %v%s are incompatible (inner dimensions %d and %d)", as, tstr(transA), bs, tstr(transB), k, k2)
	}
	lda, ldb := as[1], bs[1]
	return tr.apply(&Op{
		name: "MatMul", out: Shape{m, n}, attrs: matMulAttrs{transA, transB, precision},
		fwd: func(o []float32, in [][]float32) {
			gm.sgemm(transA, transB, m, n, k, 1, in[0], lda, in[1], ldb, 0, o, n)
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			a, b := in[0], in[1]
			var da, db Tensor
			switch {
			case !transA && !transB:
				da, db = matMul(dy, b, false, true, precision), matMul(a, dy, true, false, precision)
			case transA && !transB:
				da, db = matMul(b, dy, false, true, precision), matMul(a, dy, false, false, precision)
			case !transA && transB:
				da, db = matMul(dy, b, false, false, precision), matMul(dy, a, true, false, precision)
			default:
				da, db = matMul(b, dy, true, true, precision), matMul(dy, a, true, true, precision)
			}
			return []Tensor{da, db}
		},
	}, a, b)
}

func tstr(t bool) string {
	if t {
		return "ᵀ"
	}
	return ""
}

// biasChannels checks that b is a vector matching the last axis of x and
// returns its length.
func biasChannels(op string, x, b Tensor) int {
	xs, bs := x.Shape(), b.Shape()
	if len(bs) != 1 || len(xs) == 0 || xs[len(xs)-1] != bs[0] || bs[0] < 1 {
		fail(op, "bias of shape %v does not match the last axis of %v", bs, xs)
	}
	return bs[0]
}

// BiasAdd adds the vector b to the last axis of x.
func BiasAdd(x, b Tensor) Tensor {
	tr := sameTrace("BiasAdd", x, b)
	c := biasChannels("BiasAdd", x, b)
	if y, ok := fuseConvBias(x, b); ok {
		return y // conv_bias.go
	}
	xs := x.Shape()
	rows := xs.Size() / c
	return tr.apply(&Op{
		name: "BiasAdd", out: xs, attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			src, bias := in[0][:rows*c], in[1][:c]
			parallelRows(rows, c, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					vec.Add(o[r*c:(r+1)*c], src[r*c:(r+1)*c], bias)
				}
			})
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{dy, biasAddGrad(dy)} },
	}, x, b)
}

// biasAddGrad sums dy over every axis but the last (in float64, in a fixed
// number of partial sums).
func biasAddGrad(dy Tensor) Tensor {
	tr := sameTrace("BiasAddGrad", dy)
	s := dy.Shape()
	c := s[len(s)-1]
	return tr.apply(&Op{
		name: "BiasAddGrad", out: Shape{c}, attrs: fmt.Sprint(s),
		fwd:  sumToKernel(s, Shape{c}),
		grad: func(in []Tensor, _, g Tensor) []Tensor { return []Tensor{BroadcastTo(g, s)} },
	}, dy)
}
