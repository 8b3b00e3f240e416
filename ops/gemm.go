package ops

import "github.com/gokeras/gokeras/internal/kernels"

// sgemm is the GEMM every op uses: row-major C = alpha*op(A)*op(B) + beta*C,
// on our packed, cache-blocked kernels (internal/kernels).
func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	kernels.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
