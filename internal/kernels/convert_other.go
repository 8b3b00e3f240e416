//go:build !amd64 || noasm

package kernels

// Without assembly the conversions use their pure-Go twins (on arm64 the
// float32/bfloat16 ones have ASIMD assembly: convert_arm64.go).

var (
	hasAVX512BF16 = false
	useBF16Asm    = false
	useF16Asm     = false
)

func f32ToF16(dst []uint16, src []float32) { f32ToF16Generic(dst, src) }

func f16ToF32(dst []float32, src []uint16) { f16ToF32Generic(dst, src) }

func bf16Interleave(dst []uint32, lo, hi []float32) { bf16InterleaveGeneric(dst, lo, hi) }

func interleavePanels(dst []uint32, stride int, lo, hi []float32) {
	interleavePanelsGeneric(dst, stride, lo, hi)
}

func cvtRunsAVX512(dst *uint32, src *float32, runs, run, stride int) {
	panic("kernels: cvtRunsAVX512 without assembly")
}
