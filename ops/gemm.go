package ops

import "gonum.org/v1/gonum/blas/gonum"

var blas32 gonum.Implementation

// sgemm is the GEMM every op uses: row-major C = alpha*op(A)*op(B) + beta*C.
func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := 'N', 'N'
	if transA {
		ta = 'T'
	}
	if transB {
		tb = 'T'
	}
	blas32.Sgemm(blasT(ta), blasT(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func blasT(c rune) blasTranspose {
	if c == 'T' {
		return blasTrans
	}
	return blasNoTrans
}
