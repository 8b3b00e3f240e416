package kernels

import "math"

// float16 is IEEE 754 binary16: 1 sign bit, 5 exponent bits, 10 mantissa
// bits, stored as uint16 bit patterns. Rounding from float32 is to nearest,
// ties to even, with gradual underflow (subnormal halves) and overflow to
// Inf, as F16C's VCVTPS2PH with imm8 = 0 does. A NaN stays a NaN of the same
// sign with the upper 9 bits of its payload, made quiet (VCVTPS2PH's
// behaviour; numpy may keep a signalling NaN signalling instead).

// F16FromFloat32 rounds x to the nearest float16 (ties to even) and returns
// its bit pattern.
func F16FromFloat32(x float32) uint16 { return f16Round(math.Float32bits(x)) }

// Float32FromF16 returns the float32 value of the float16 bit pattern h
// (exact; a signalling NaN is made quiet, as VCVTPH2PS does).
func Float32FromF16(h uint16) float32 { return math.Float32frombits(f16Widen(h)) }

// f16Round converts the float32 bit pattern u to float16 (RNE).
func f16Round(u uint32) uint16 {
	sign := uint16(u>>16) & 0x8000
	a := u & 0x7fffffff
	switch {
	case a > 0x7f800000: // NaN: quiet, keep the upper payload bits
		return sign | 0x7e00 | uint16(a>>13)&0x3ff
	case a >= 0x477ff000: // rounds to >= 65520: Inf
		return sign | 0x7c00
	case a >= 0x38800000: // normal half (|x| >= 2^-14)
		// Rebias the exponent (127 -> 15) and round the 13 dropped bits.
		r := a - (112 << 23)
		r += 0xfff + (r>>13)&1
		return sign | uint16(r>>13)
	case a < 0x33000000: // below half the smallest subnormal 2^-25: zero
		return sign
	default: // subnormal half: value = m * 2^-24
		e := a >> 23 // 102..112
		m := a&0x7fffff | 0x800000
		shift := 126 - e // 14..24: bits dropped from the 24-bit mantissa
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++ // may carry into the smallest normal, which is right
		}
		return sign | uint16(h)
	}
}

// f16Widen converts the float16 bit pattern h to a float32 bit pattern.
func f16Widen(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f:
		if m != 0 {
			return sign | 0x7fc00000 | m<<13 // NaN, made quiet
		}
		return sign | 0x7f800000
	case e != 0:
		return sign | (e+112)<<23 | m<<13
	case m == 0:
		return sign
	default: // subnormal: normalise
		e = 113
		for m&0x400 == 0 {
			m <<= 1
			e--
		}
		return sign | e<<23 | (m&0x3ff)<<13
	}
}

// ConvertFloat32ToF16 rounds src[i] to float16 into dst[i] for i in
// [0, len(src)), with F16C where the CPU has it. It panics if
// len(dst) < len(src).
func ConvertFloat32ToF16(dst []uint16, src []float32) {
	if len(dst) < len(src) {
		panic("kernels: ConvertFloat32ToF16: len(dst) < len(src)")
	}
	if len(src) == 0 {
		return
	}
	f32ToF16(dst[:len(src)], src)
}

// ConvertF16ToFloat32 widens the float16 values src[i] into dst[i] for i in
// [0, len(src)) (exact), with F16C where the CPU has it. It panics if
// len(dst) < len(src).
func ConvertF16ToFloat32(dst []float32, src []uint16) {
	if len(dst) < len(src) {
		panic("kernels: ConvertF16ToFloat32: len(dst) < len(src)")
	}
	if len(src) == 0 {
		return
	}
	f16ToF32(dst[:len(src)], src)
}

// RoundF16 rounds every value of src to the nearest float16 and stores it
// back as float32 into dst (dst and src may be the same slice). It panics if
// len(dst) < len(src).
func RoundF16(dst, src []float32) {
	if len(dst) < len(src) {
		panic("kernels: RoundF16: len(dst) < len(src)")
	}
	var buf [256]uint16
	for len(src) > 0 {
		n := min(len(src), len(buf))
		f32ToF16(buf[:n], src[:n])
		f16ToF32(dst[:n], buf[:n])
		src, dst = src[n:], dst[n:]
	}
}

func f32ToF16Generic(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = f16Round(math.Float32bits(v))
	}
}

func f16ToF32Generic(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for i, h := range src {
		dst[i] = math.Float32frombits(f16Widen(h))
	}
}
