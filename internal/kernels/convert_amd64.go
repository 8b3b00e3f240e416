//go:build amd64 && !noasm

package kernels

import "golang.org/x/sys/cpu"

// CPU features of the conversions and of the bfloat16 GEMM kernel.
// golang.org/x/sys/cpu does not report F16C, so it is read with CPUID.
var (
	hasAVX512BF16 = hasAVX512 && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BF16
	hasF16C       = hasAVX2FMA && cpuidECX1()&(1<<29) != 0
)

// cpuidECX1 returns ECX of CPUID leaf 1.
func cpuidECX1() uint32

// f32ToBF16AVX512 converts n (a multiple of 16) floats with VCVTNEPS2BF16;
// unless ftz, lanes holding float32 subnormals (which the instruction
// flushes to zero) are redone with integer round-to-nearest-even:
//
//	for i := 0; i < n; i++ {
//		if ftz {
//			dst[i] = bf16RoundFTZ(bits(src[i]))
//		} else {
//			dst[i] = bf16Round(bits(src[i]))
//		}
//	}
//
//go:noescape
func f32ToBF16AVX512(dst *uint16, src *float32, n int, ftz bool)

// bf16ToF32AVX512 widens n (a multiple of 16) bfloat16 values:
//
//	for i := 0; i < n; i++ {
//		dst[i] = frombits(uint32(src[i]) << 16)
//	}
//
//go:noescape
func bf16ToF32AVX512(dst *float32, src *uint16, n int)

// f32ToF16F16C converts n (a multiple of 8) floats with VCVTPS2PH (imm8 0:
// round to nearest even): dst[i] = f16Round(bits(src[i])).
//
//go:noescape
func f32ToF16F16C(dst *uint16, src *float32, n int)

// f16ToF32F16C widens n (a multiple of 8) halves with VCVTPH2PS:
// dst[i] = frombits(f16Widen(src[i])).
//
//go:noescape
func f16ToF32F16C(dst *float32, src *uint16, n int)

// Test hooks: the assembly paths can be switched off to test the Go twins
// on this machine.
var useBF16Asm, useF16Asm = hasAVX512BF16, hasF16C

func f32ToBF16(dst []uint16, src []float32, ftz bool) {
	n := 0
	if useBF16Asm {
		n = len(src) &^ 15
		if n > 0 {
			f32ToBF16AVX512(&dst[0], &src[0], n, ftz)
		}
	}
	f32ToBF16Generic(dst[n:len(src)], src[n:], ftz)
}

func bf16ToF32(dst []float32, src []uint16) {
	n := 0
	if hasAVX512 {
		n = len(src) &^ 15
		if n > 0 {
			bf16ToF32AVX512(&dst[0], &src[0], n)
		}
	}
	bf16ToF32Generic(dst[n:len(src)], src[n:])
}

func f32ToF16(dst []uint16, src []float32) {
	n := 0
	if useF16Asm {
		n = len(src) &^ 7
		if n > 0 {
			f32ToF16F16C(&dst[0], &src[0], n)
		}
	}
	f32ToF16Generic(dst[n:len(src)], src[n:])
}

func f16ToF32(dst []float32, src []uint16) {
	n := 0
	if useF16Asm {
		n = len(src) &^ 7
		if n > 0 {
			f16ToF32F16C(&dst[0], &src[0], n)
		}
	}
	f16ToF32Generic(dst[n:len(src)], src[n:])
}

// bf16InterleaveAVX512 packs two rows into bfloat16 pairs with
// VCVTNE2PS2BF16 and VPERMW (n a multiple of 16; subnormals flush):
//
//	for j := 0; j < n; j++ {
//		dst[j] = uint32(bf16RoundFTZ(bits(lo[j]))) | uint32(bf16RoundFTZ(bits(hi[j])))<<16
//	}
//
//go:noescape
func bf16InterleaveAVX512(dst *uint32, lo, hi *float32, n int, idx *uint16)

// bf16InterleaveIdx is the VPERMW table of bf16InterleaveAVX512: word 2j
// from word j (lo), word 2j+1 from word 16+j (hi).
var bf16InterleaveIdx = func() (t [32]uint16) {
	for j := 0; j < 16; j++ {
		t[2*j], t[2*j+1] = uint16(j), uint16(16+j)
	}
	return t
}()

// bf16Interleave is bf16InterleaveGeneric with the bulk done by
// bf16InterleaveAVX512.
func bf16Interleave(dst []uint32, lo, hi []float32) {
	n := 0
	if useBF16Asm {
		n = len(lo) &^ 15
		if n > 0 {
			_, _ = dst[n-1], hi[n-1]
			bf16InterleaveAVX512(&dst[0], &lo[0], &hi[0], n, &bf16InterleaveIdx[0])
		}
	}
	bf16InterleaveGeneric(dst[n:len(lo)], lo[n:], hi[n:len(lo)])
}

// interleavePanelsAVX512 is interleavePanelsGeneric for n (a multiple of
// 32) values of lo and hi, 32 to a panel, panels stride words apart.
//
//go:noescape
func interleavePanelsAVX512(dst *uint32, lo, hi *float32, n int, idx *uint16, stride int)

// interleavePanels is interleavePanelsGeneric on AVX512_BF16 where the
// CPU has it. hi has at least len(lo) values.
func interleavePanels(dst []uint32, stride int, lo, hi []float32) {
	n := len(lo)
	if !useBF16Asm || n == 0 {
		interleavePanelsGeneric(dst, stride, lo, hi)
		return
	}
	_, _ = dst[(n/BF16PanelWidth-1)*stride+BF16PanelWidth-1], hi[n-1]
	interleavePanelsAVX512(&dst[0], &lo[0], &hi[0], n, &bf16InterleaveIdx[0], stride)
}

// cvtRunsAVX512 converts runs runs of run values (a multiple of 32), run
// r at src + r*stride floats, to consecutive bfloat16 at dst (subnormals
// flushed, as f32ToBF16AVX512 with ftz), 32 values per VCVTNE2PS2BF16.
//
//go:noescape
func cvtRunsAVX512(dst *uint32, src *float32, runs, run, stride int)
