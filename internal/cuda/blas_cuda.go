//go:build cuda

package cuda

// Our own cuBLAS declarations (no header needed, and they link against any
// libcublas.so.12 or .13): gorgonia.org/cu/blas takes Go slices, so device
// memory would have to pose as Go memory, and it cannot set a stream.

/*
#cgo LDFLAGS: -lcublas
#include <stddef.h>
typedef void *gk_cublasHandle_t;
int cublasCreate_v2(gk_cublasHandle_t *handle);
int cublasDestroy_v2(gk_cublasHandle_t handle);
int cublasSetStream_v2(gk_cublasHandle_t handle, void *stream);
int cublasSetWorkspace_v2(gk_cublasHandle_t handle, void *workspace, size_t bytes);
int cublasSetMathMode(gk_cublasHandle_t handle, int mode);
int cublasSgemm_v2(gk_cublasHandle_t handle, int transa, int transb, int m, int n, int k,
	const float *alpha, const float *A, int lda, const float *B, int ldb,
	const float *beta, float *C, int ldc);
static int gk_setws(gk_cublasHandle_t h, unsigned long long ws, size_t bytes) {
	return cublasSetWorkspace_v2(h, (void *)ws, bytes);
}
static int gk_sgemm(gk_cublasHandle_t h, int ta, int tb, int m, int n, int k, float alpha,
	unsigned long long a, int lda, unsigned long long b, int ldb, float beta, unsigned long long c, int ldc) {
	return cublasSgemm_v2(h, ta, tb, m, n, k, &alpha, (const float *)a, lda, (const float *)b, ldb, &beta, (float *)c, ldc);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// cublasPedanticMath keeps FP32 GEMMs in FP32 (no TF32 tensor-core
// rounding), so they agree with the CPU kernel to float32 precision.
const cublasPedanticMath = 2

// Blas is a cuBLAS handle bound to one stream.
type Blas struct{ h C.gk_cublasHandle_t }

func blasErr(what string, st C.int) error {
	if st == 0 {
		return nil
	}
	return fmt.Errorf("cuda: cuBLAS %s: status %d", what, int(st))
}

// NewBlas creates a handle whose work goes to s, with a fixed workspace
// (ws, bytes; 0 for cuBLAS' own) so that CUDA graph capture never sees
// cuBLAS allocate. Call it inside the device's Do.
func NewBlas(s cu.Stream, ws cu.DevicePtr, bytes int64) (*Blas, error) {
	b := &Blas{}
	if err := blasErr("create", C.cublasCreate_v2(&b.h)); err != nil {
		return nil, err
	}
	if err := blasErr("set stream", C.cublasSetStream_v2(b.h, unsafe.Pointer(s.C()))); err != nil {
		return nil, err
	}
	if err := blasErr("set math mode", C.cublasSetMathMode(b.h, cublasPedanticMath)); err != nil {
		return nil, err
	}
	if ws != 0 {
		if err := blasErr("set workspace", C.gk_setws(b.h, C.ulonglong(ws), C.size_t(bytes))); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// WarmUp runs one 1x1x1 GEMM on device scratch (cuBLAS' first call on a
// handle loads its kernels and may allocate) and waits for it, so that
// the first GEMM a CUDA graph captures finds the handle ready. Call it
// inside the device's Do, before any capture.
func (b *Blas) WarmUp(s cu.Stream) error {
	p, err := cu.MemAlloc(3 * 4)
	if err != nil {
		return fmt.Errorf("cuda: cuBLAS warm-up: %w", err)
	}
	err = b.Sgemm(false, false, 1, 1, 1, 1, p, 1, p+4, 1, 0, p+8)
	if err == nil {
		if e := s.Synchronize(); e != nil {
			err = fmt.Errorf("cuda: cuBLAS warm-up: %w", e)
		}
	}
	if e := cu.MemFree(p); err == nil && e != nil {
		err = fmt.Errorf("cuda: cuBLAS warm-up: %w", e)
	}
	return err
}

// Close destroys the handle.
func (b *Blas) Close() error {
	if b == nil || b.h == nil {
		return nil
	}
	err := blasErr("destroy", C.cublasDestroy_v2(b.h))
	b.h = nil
	return err
}

// Sgemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices:
// op(a) is m×k, op(b) k×n, c m×n; lda, ldb are the row lengths of a and b
// as stored. cuBLAS is column-major, and a row-major matrix read
// column-major is its transpose, so this asks for cᵀ = op(b)ᵀ·op(a)ᵀ.
func (b *Blas) Sgemm(transA, transB bool, m, n, k int, alpha float32, a cu.DevicePtr, lda int, bm cu.DevicePtr, ldb int, beta float32, c cu.DevicePtr) error {
	if m <= 0 || n <= 0 || k <= 0 {
		return fmt.Errorf("cuda: Sgemm %dx%dx%d: sizes must be positive", m, n, k)
	}
	op := func(t bool) C.int {
		if t {
			return 1
		}
		return 0
	}
	st := C.gk_sgemm(b.h, op(transB), op(transA), C.int(n), C.int(m), C.int(k), C.float(alpha),
		C.ulonglong(bm), C.int(ldb), C.ulonglong(a), C.int(lda), C.float(beta), C.ulonglong(c), C.int(n))
	return blasErr(fmt.Sprintf("Sgemm %dx%dx%d", m, n, k), st)
}
