//go:build amd64 && !noasm

package kernels

import "golang.org/x/sys/cpu"

// sgemmKernel14x32AVX512 is the AVX-512 micro-kernel. It computes one full
// 14x32 tile of C from a 14 x k sliver of A with row stride rsa and column
// stride csa (packed: rsa=1, csa=14; row-major A: rsa=lda, csa=1; transposed
// A: rsa=1, csa=lda) and a k x 32 sliver of B with row stride ldb (packed:
// ldb=32; row-major B read in place: its ldb):
//
//	for i := 0; i < 14; i++ {
//		for j := 0; j < 32; j++ {
//			var acc float32
//			for p := 0; p < k; p++ {
//				acc += a[i*rsa+p*csa] * b[p*ldb+j]
//			}
//			if beta == 0 {
//				c[i*ldc+j] = alpha * acc // C is not read
//			} else {
//				c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j]
//			}
//		}
//	}
//
//go:noescape
func sgemmKernel14x32AVX512(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

// sgemmKernel6x16AVX2 is the AVX2+FMA micro-kernel. It computes one full
// 6x16 tile of C from a 6 x k sliver of A with strides rsa/csa and a k x 16
// sliver of B with row stride ldb (see sgemmKernel14x32AVX512):
//
//	for i := 0; i < 6; i++ {
//		for j := 0; j < 16; j++ {
//			var acc float32
//			for p := 0; p < k; p++ {
//				acc += a[i*rsa+p*csa] * b[p*ldb+j]
//			}
//			if beta == 0 {
//				c[i*ldc+j] = alpha * acc // C is not read
//			} else {
//				c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j]
//			}
//		}
//	}
//
//go:noescape
func sgemmKernel6x16AVX2(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)

// saxpyAVX2 computes y[i] += alpha*x[i] for i in [0, n):
//
//	for i := 0; i < n; i++ {
//		y[i] += alpha * x[i]
//	}
//
//go:noescape
func saxpyAVX2(alpha float32, x, y *float32, n int)

// sdotAVX2 returns the dot product of x[:n] and y[:n]:
//
//	var s float32
//	for i := 0; i < n; i++ {
//		s += x[i] * y[i]
//	}
//	return s
//
//go:noescape
func sdotAVX2(x, y *float32, n int) float32

var (
	hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512  = cpu.X86.HasAVX512F && hasAVX2FMA
)

var (
	kernelAVX512 = &kernelImpl{name: "avx512-14x32", mr: 14, nr: 32, fn: sgemmKernel14x32AVX512}
	kernelAVX2   = &kernelImpl{name: "avx2-6x16", mr: 6, nr: 16, fn: sgemmKernel6x16AVX2}
)

func init() {
	if hasAVX2FMA {
		availableGathers = append(availableGathers, gatherImpl{"avx2", gatherPackAVX2, 8})
		gatherPack, gatherLanes = gatherPackAVX2, 8
	}
	if hasAVX512 {
		availableGathers = append(availableGathers, gatherImpl{"avx512", gatherPackAVX512, 16})
		gatherPack, gatherLanes = gatherPackAVX512, 16
	}
	if hasAVX2FMA {
		availableKernels = append(availableKernels, kernelAVX2)
		active = kernelAVX2
	}
	if hasAVX512 {
		availableKernels = append(availableKernels, kernelAVX512)
		active = kernelAVX512
	}
}

func saxpy(alpha float32, x, y []float32) {
	if hasAVX2FMA && len(x) >= 8 {
		saxpyAVX2(alpha, &x[0], &y[0], len(x))
		return
	}
	saxpyGeneric(alpha, x, y)
}

func sdot(x, y []float32) float32 {
	if hasAVX2FMA && len(x) >= 8 {
		return sdotAVX2(&x[0], &y[0], len(x))
	}
	return sdotGeneric(x, y)
}

// gatherPackAVX512 copies a strided block into a packing buffer, lanes
// (<= 16) source rows at a time, zero-filling up to width (<= 16) lanes:
//
//	for p := 0; p < kc; p++ {
//		for i := 0; i < width; i++ {
//			v := float32(0)
//			if i < lanes {
//				v = src[i*srcStride+p]
//			}
//			dst[p*dstStride+i] = v
//		}
//	}
//
//go:noescape
func gatherPackAVX512(dst *float32, dstStride int, src *float32, srcStride int, lanes, width, kc int)

// gatherPackAVX2 is gatherPackAVX512 for at most 8 lanes.
//
//go:noescape
func gatherPackAVX2(dst *float32, dstStride int, src *float32, srcStride int, lanes, width, kc int)
