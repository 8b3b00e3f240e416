package ops

import (
	"os"

	"github.com/gokeras/gokeras/internal/kernels"
)

// sgemm is the GEMM every op uses: row-major C = alpha*op(A)*op(B) + beta*C,
// on our packed, cache-blocked kernels (internal/kernels).
func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	kernels.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// PrecisionBFloat16 is the GEMM precision (Conv2DAttrs.Precision) in which
// the operands are rounded to bfloat16 and the products summed in float32
// (kernels.SgemmBF16); "" is float32 (kernels.Sgemm).
const PrecisionBFloat16 = "bfloat16"

// gemmMode is the precision of an op's GEMMs, embedded in the state its
// kernels share (convState, convPlan); the zero gemmMode is float32.
type gemmMode struct{ bf16 bool }

// modeOf returns the gemmMode of a precision attribute: "" or "float32",
// or PrecisionBFloat16.
func modeOf(op, precision string) gemmMode {
	switch precision {
	case "", "float32":
		return gemmMode{}
	case PrecisionBFloat16:
		return gemmMode{bf16: true}
	}
	fail(op, "unsupported GEMM precision %q (\"\", \"float32\" or %q)", precision, PrecisionBFloat16)
	return gemmMode{}
}

// sgemm is the package's sgemm in the mode's precision. In bfloat16 the
// operands are bfloat16 values (a mixed_bfloat16 layer has rounded them,
// CastToBFloat16) and their products, exact in float32, are summed in
// float32, so the bfloat16 kernel (kernels.SgemmBF16, which rounds while
// packing) and the float32 one compute the same sums in different orders;
// each call takes the faster (bf16Faster). An operand that is not
// bfloat16-exact (a gradient that went through a softmax inside the
// layer) is then rounded or not depending on the shape: both are within
// bfloat16 compute's error.
func (gm gemmMode) sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !gm.bf16 || !bf16Faster(transA, m, n, k) {
		sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m == 0 || n == 0 {
		return
	}
	kernels.SgemmBF16(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmFunc is a GEMM with sgemm's arguments.
type gemmFunc func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// gemm returns the mode's sgemm, or, when serial, the same GEMMs on the
// calling goroutine alone (for blocks already running in parallel,
// imageSplit): bitwise the same results.
func (gm gemmMode) gemm(serial bool) gemmFunc {
	if !serial {
		return gm.sgemm
	}
	return func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		if m == 0 || n == 0 {
			return
		}
		if gm.bf16 && bf16Faster(transA, m, n, k) {
			kernels.SgemmBF16Serial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			return
		}
		kernels.SgemmSerial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// bf16Faster reports whether SgemmBF16 beats Sgemm at this shape, as
// measured (BenchmarkSeedCNNGEMMs) on the AMX kernel: not without a
// hardware bfloat16 kernel (it would round copies and run Sgemm), nor for
// k < 32 (the same), nor for a transposed A with few rows or a short k
// (the weight gradients of a stem convolution, of a dense layer at a small
// batch, of a tap class: the transposition to k-pairs costs more than
// the tiles save).
func bf16Faster(transA bool, m, n, k int) bool {
	if k < 32 || !kernels.HasFastBF16() {
		return false
	}
	return !transA || m >= 32 && k >= 256
}

// gemmPrecision is the GEMM precision of ops made now on tr when the op's
// attributes name none: PrecisionBFloat16 while a layer computing in
// bfloat16 is being called (mixed_bfloat16: its reads are cast to
// bfloat16, Trace.CastReads), so its convolutions and matrix products
// run on bfloat16 GEMM kernels; "" otherwise, float32 programs keeping
// float32 GEMMs. A layer given dtype "float32" (or computing in float16)
// keeps float32 GEMMs, and so does every layer while the environment
// variable GOKERAS_BF16_GEMM is "0" when the op is made (the values are
// rounded all the same: only the kernel, and the order of the float32
// sums, differ).
func (tr *Trace) gemmPrecision() string {
	if d, _ := tr.attrs[readCastKey{}].(string); d == "bfloat16" && os.Getenv("GOKERAS_BF16_GEMM") != "0" {
		return PrecisionBFloat16
	}
	return ""
}
