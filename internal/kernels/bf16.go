package kernels

import "math"

// bfloat16 is the upper half of an IEEE float32: 1 sign bit, 8 exponent bits
// and 7 mantissa bits. Values are stored as uint16 bit patterns.
//
// Rounding from float32 is to nearest, ties to even, on the bit pattern
// (which also rounds subnormals correctly and carries overflow into Inf).
// A NaN stays a NaN of the same sign and upper payload, made quiet (bit 6
// set) so truncation can never turn it into an Inf; this is what the
// AVX512_BF16 instruction VCVTNEPS2BF16 does. Unlike that instruction, the
// exported conversions keep float32 subnormals (they round to bfloat16
// subnormals, as numpy/ml_dtypes do); the GEMM packing flushes them to zero
// (see SgemmBF16).

// BF16FromFloat32 rounds x to the nearest bfloat16 (ties to even) and
// returns its bit pattern.
func BF16FromFloat32(x float32) uint16 { return bf16Round(math.Float32bits(x)) }

// Float32FromBF16 returns the float32 value of the bfloat16 bit pattern h
// (exact).
func Float32FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// bf16Round rounds the float32 bit pattern u to bfloat16 (RNE, NaN quiet).
func bf16Round(u uint32) uint16 {
	if u&0x7fffffff > 0x7f800000 { // NaN
		return uint16(u>>16) | 0x40
	}
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}

// bf16RoundFTZ is bf16Round with float32 subnormal inputs flushed to a zero
// of the same sign, as VCVTNEPS2BF16 and VCVTNE2PS2BF16 do.
func bf16RoundFTZ(u uint32) uint16 {
	if u&0x7f800000 == 0 {
		return uint16(u>>16) & 0x8000
	}
	return bf16Round(u)
}

// ConvertFloat32ToBF16 rounds src[i] to bfloat16 into dst[i] for i in
// [0, len(src)), with AVX512_BF16 where the CPU has it. It panics if
// len(dst) < len(src).
func ConvertFloat32ToBF16(dst []uint16, src []float32) {
	if len(dst) < len(src) {
		panic("kernels: ConvertFloat32ToBF16: len(dst) < len(src)")
	}
	if len(src) == 0 {
		return
	}
	f32ToBF16(dst[:len(src)], src, false)
}

// ConvertBF16ToFloat32 widens the bfloat16 values src[i] into dst[i] for i
// in [0, len(src)) (exact). It panics if len(dst) < len(src).
func ConvertBF16ToFloat32(dst []float32, src []uint16) {
	if len(dst) < len(src) {
		panic("kernels: ConvertBF16ToFloat32: len(dst) < len(src)")
	}
	if len(src) == 0 {
		return
	}
	bf16ToF32(dst[:len(src)], src)
}

// RoundBF16 rounds every value of src to the nearest bfloat16 and stores it
// back as float32 into dst (dst and src may be the same slice): the values
// a bfloat16 tensor kept in a float32 buffer holds. It panics if
// len(dst) < len(src).
func RoundBF16(dst, src []float32) {
	if len(dst) < len(src) {
		panic("kernels: RoundBF16: len(dst) < len(src)")
	}
	var buf [256]uint16
	for len(src) > 0 {
		n := min(len(src), len(buf))
		f32ToBF16(buf[:n], src[:n], false)
		bf16ToF32(dst[:n], buf[:n])
		src, dst = src[n:], dst[n:]
	}
}

// f32ToBF16Generic is the pure-Go twin of the assembly conversion; ftz
// flushes float32 subnormals to zero first.
func f32ToBF16Generic(dst []uint16, src []float32, ftz bool) {
	dst = dst[:len(src)]
	if ftz {
		for i, v := range src {
			dst[i] = bf16RoundFTZ(math.Float32bits(v))
		}
		return
	}
	for i, v := range src {
		dst[i] = bf16Round(math.Float32bits(v))
	}
}

func bf16ToF32Generic(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for i, h := range src {
		dst[i] = math.Float32frombits(uint32(h) << 16)
	}
}

// bf16InterleaveGeneric rounds two rows to bfloat16 pairs (subnormals
// flushed): dst[j] = bf16(lo[j]) | bf16(hi[j])<<16.
func bf16InterleaveGeneric(dst []uint32, lo, hi []float32) {
	dst = dst[:len(lo)]
	hi = hi[:len(lo)]
	for j, v := range lo {
		dst[j] = uint32(bf16RoundFTZ(math.Float32bits(v))) | uint32(bf16RoundFTZ(math.Float32bits(hi[j])))<<16
	}
}
