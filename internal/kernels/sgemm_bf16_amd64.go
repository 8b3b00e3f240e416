//go:build amd64 && !noasm

package kernels

import "unsafe"

// bf16Kernel14x32AVX512 is the AVX512_BF16 micro-kernel (see
// bf16KernelImpl): a 14x32 tile of C in 28 ZMM accumulators, one
// VPBROADCASTD of an A pair and two VDPBF16PS per row and k-pair:
//
//	for i := 0; i < 14; i++ {
//		for j := 0; j < 32; j++ {
//			var acc float32
//			for q := 0; q < kp; q++ {
//				x, y := a[i*rsa+q*csa], b[q*32+j]
//				acc += hi(x) * hi(y)
//				acc += lo(x) * lo(y)
//			}
//			c[i*ldc+j] = alpha*acc (+ beta*c[i*ldc+j] unless beta == 0)
//		}
//	}
//
//go:noescape
func bf16Kernel14x32AVX512(kp int, a *uint32, rsa, csa int, b *uint32, c *float32, ldc int, alpha, beta float32)

var bf16KernelAVX512 = &bf16KernelImpl{name: "avx512bf16-14x32", mr: 14, nr: 32, fn: bf16Kernel14x32AVX512}

func init() {
	bf16Probes = append(bf16Probes, func() {
		if hasAVX512BF16 {
			availableBF16Kernels = append(availableBF16Kernels, bf16KernelAVX512)
			if !activeBF16.amx {
				activeBF16 = bf16KernelAVX512
			}
		}
	})
}

// cvtPairs is cvtPairsGeneric with the bulk of the row converted by
// VCVTNEPS2BF16 (on little-endian amd64 the pair words are the bfloat16
// values in order).
func cvtPairs(dst []uint32, src []float32) {
	n := 0
	if useBF16Asm {
		n = len(src) &^ 15
		if n > 0 {
			_ = dst[n/2-1]
			f32ToBF16AVX512((*uint16)(unsafe.Pointer(&dst[0])), &src[0], n, true)
		}
	}
	cvtPairsGeneric(dst[n/2:], src[n:])
}
