package ops

// BatchMatMulAttrs are the attributes of a BatchMatMul op: whether each
// operand's last two axes are transposed before the product.
type BatchMatMulAttrs struct{ TransA, TransB bool }

// BatchMatMul returns op(a[i]) · op(b[i]) for every index i of the leading
// axes, as keras.ops.matmul on rank-3 and higher operands (no broadcasting
// of the batch axes: they must be equal). a is (..., m, k) and b is
// (..., k, n), or their transposes when the flags are set; the result is
// (..., m, n). The attention layers compute their scores and weighted
// values with it.
func BatchMatMul(a, b Tensor, transA, transB bool) Tensor {
	tr := sameTrace("BatchMatMul", a, b)
	as, bs := a.Shape(), b.Shape()
	if len(as) < 3 || len(as) != len(bs) {
		fail("BatchMatMul", "needs operands of equal rank >= 3, got %v and %v", as, bs)
	}
	r := len(as)
	if !as[:r-2].Equal(bs[:r-2]) {
		fail("BatchMatMul", "batch axes of %v and %v differ", as, bs)
	}
	m, k := as[r-2], as[r-1]
	if transA {
		m, k = k, m
	}
	k2, n := bs[r-2], bs[r-1]
	if transB {
		k2, n = n, k2
	}
	if k != k2 {
		fail("BatchMatMul", "shapes %v%s and %v%s are incompatible (inner dimensions %d and %d)", as, tstr(transA), bs, tstr(transB), k, k2)
	}
	batch := as[:r-2].Size()
	out := append(as[:r-2].Clone(), m, n)
	lda, ldb := as[r-1], bs[r-1]
	sa, sb, so := as[r-2]*as[r-1], bs[r-2]*bs[r-1], m*n
	return tr.apply(&Op{
		name: "BatchMatMul", out: out, attrs: BatchMatMulAttrs{transA, transB},
		fwd: func(o []float32, in [][]float32) {
			if k == 0 {
				clear(o)
				return
			}
			for i := 0; i < batch; i++ {
				sgemm(transA, transB, m, n, k, 1, in[0][i*sa:(i+1)*sa], lda, in[1][i*sb:(i+1)*sb], ldb, 0, o[i*so:(i+1)*so], n)
			}
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			a, b := in[0], in[1]
			var da, db Tensor
			switch {
			case !transA && !transB:
				da, db = BatchMatMul(dy, b, false, true), BatchMatMul(a, dy, true, false)
			case transA && !transB:
				da, db = BatchMatMul(b, dy, false, true), BatchMatMul(a, dy, false, false)
			case !transA && transB:
				da, db = BatchMatMul(dy, b, false, false), BatchMatMul(dy, a, true, false)
			default:
				da, db = BatchMatMul(b, dy, true, true), BatchMatMul(dy, a, true, true)
			}
			return []Tensor{da, db}
		},
	}, a, b)
}
