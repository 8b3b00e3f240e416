//go:build arm64 && !noasm

package kernels

// f32ToBF16NEON is f32ToBF16Generic for n values, n a positive multiple
// of 16 (sgemm_kernel_arm64.s):
//
//	for i := 0; i < n; i++ {
//		if ftz {
//			dst[i] = bf16RoundFTZ(math.Float32bits(src[i]))
//		} else {
//			dst[i] = bf16Round(math.Float32bits(src[i]))
//		}
//	}
//
//go:noescape
func f32ToBF16NEON(dst *uint16, src *float32, n int, ftz bool)

// bf16ToF32NEON is bf16ToF32Generic for n values, n a positive multiple of
// 16: dst[i] = math.Float32frombits(uint32(src[i]) << 16).
//
//go:noescape
func bf16ToF32NEON(dst *float32, src *uint16, n int)

func f32ToBF16(dst []uint16, src []float32, ftz bool) {
	dst = dst[:len(src)]
	n := len(src) &^ 15
	if n > 0 {
		f32ToBF16NEON(&dst[0], &src[0], n, ftz)
	}
	f32ToBF16Generic(dst[n:], src[n:], ftz)
}

func bf16ToF32(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	n := len(src) &^ 15
	if n > 0 {
		bf16ToF32NEON(&dst[0], &src[0], n)
	}
	bf16ToF32Generic(dst[n:], src[n:])
}
