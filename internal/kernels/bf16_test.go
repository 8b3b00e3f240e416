package kernels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bf16Exact rounds the float32 bit pattern u to bfloat16 by an independent
// slow method: exact rational arithmetic, choosing the nearer of the two
// neighbouring bfloat16 values (the even one on a tie).
func bf16Exact(u uint32) uint16 {
	x := math.Float32frombits(u)
	switch {
	case x != x:
		return uint16(u>>16) | 0x40
	case math.IsInf(float64(x), 0), x == 0:
		return uint16(u >> 16)
	}
	lo := uint16(u >> 16) // truncation: toward zero
	hi := lo + 1          // next away from zero (may be Inf)
	v := new(big.Float).SetPrec(0).SetFloat64(float64(x))
	vlo := new(big.Float).SetFloat64(float64(Float32FromBF16(lo)))
	var vhi *big.Float
	if hi&0x7fff == 0x7f80 { // Inf: the midpoint lies at 2^128 - 2^119
		vhi = new(big.Float).SetMantExp(big.NewFloat(1), 128)
		if x < 0 {
			vhi.Neg(vhi)
		}
	} else {
		vhi = new(big.Float).SetFloat64(float64(Float32FromBF16(hi)))
	}
	dlo := new(big.Float).Sub(v, vlo)
	dhi := new(big.Float).Sub(vhi, v)
	dlo.Abs(dlo)
	dhi.Abs(dhi)
	switch dlo.Cmp(dhi) {
	case -1:
		return lo
	case 1:
		return hi
	}
	if lo&1 == 0 {
		return lo
	}
	return hi
}

// edgeFloat32Bits are float32 patterns that stress conversions.
func edgeFloat32Bits() []uint32 {
	s := []uint32{
		0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000, 0x00808000, 0x00818000,
		0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x7f7f7fff, 0x7f7f8001, 0x7f800000, 0xff800000,
		0x7f800001, 0x7fc00000, 0xffc00000, 0x7f810000, 0x7fbfffff, 0xff800001, 0x7fffffff,
		0x3f800000, 0x3f808000, 0x3f818000, 0x3f808001, 0x3f807fff, 0x3effffff,
		0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0x47800000, 0x38800000, 0x387fffff,
		0x387fe000, 0x387ff000, 0x33000000, 0x33000001, 0x32ffffff, 0x33800000, 0x33c00000,
		0x337fffff, 0x38000000, 0x38001000, 0x38003000, 0x3f801000, 0x3f803000, 0x3f800fff,
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 4000; i++ {
		u := r.Uint32()
		s = append(s, u, u&0x807fffff, u&0x80ffffff|0x7f800000, u&^0xffff|0x8000, u&^0xffff|0x18000)
	}
	return s
}

func TestBF16RoundExact(t *testing.T) {
	for _, u := range edgeFloat32Bits() {
		if got, want := BF16FromFloat32(math.Float32frombits(u)), bf16Exact(u); got != want {
			t.Fatalf("BF16FromFloat32(%#08x) = %#04x, exact rounding gives %#04x", u, got, want)
		}
	}
}

// TestConvertBF16AsmMatchesGo checks the vector conversions bitwise against
// their Go twins (which TestBF16RoundExact checks against exact rounding),
// with and without flushing subnormals, at every length up to 40 so that
// vector bodies and scalar tails are both covered.
func TestConvertBF16AsmMatchesGo(t *testing.T) {
	if !hasAVX512BF16 {
		t.Log("no AVX512_BF16: the Go twin is the only path")
	}
	bits := edgeFloat32Bits()
	src := make([]float32, len(bits))
	for i, u := range bits {
		src[i] = math.Float32frombits(u)
	}
	for _, ftz := range []bool{false, true} {
		got := make([]uint16, len(src))
		want := make([]uint16, len(src))
		f32ToBF16(got, src, ftz)
		f32ToBF16Generic(want, src, ftz)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("ftz=%v: f32ToBF16(%#08x) = %#04x, Go twin %#04x", ftz, bits[i], got[i], want[i])
			}
			if ftz && bits[i]&0x7f800000 == 0 && got[i] != uint16(bits[i]>>16)&0x8000 {
				t.Fatalf("ftz: subnormal %#08x gave %#04x", bits[i], got[i])
			}
		}
	}
	for n := 0; n <= 40; n++ {
		dst := make([]uint16, n+1)
		ConvertFloat32ToBF16(dst[:n], src[:n])
		for i := 0; i < n; i++ {
			if want := BF16FromFloat32(src[i]); dst[i] != want {
				t.Fatalf("n=%d: dst[%d] = %#04x, want %#04x", n, i, dst[i], want)
			}
		}
		if dst[n] != 0 {
			t.Fatalf("n=%d: wrote past the end", n)
		}
	}
}

// TestBF16Widen checks all 2^16 bfloat16 patterns: the vector widening
// equals the scalar one, and widening then rounding is the identity (NaNs:
// quiet ones round-trip, signalling ones come back quiet).
func TestBF16Widen(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	got := make([]float32, len(src))
	ConvertBF16ToFloat32(got, src)
	back := make([]uint16, len(src))
	ConvertFloat32ToBF16(back, got)
	for i, h := range src {
		if math.Float32bits(got[i]) != uint32(h)<<16 {
			t.Fatalf("ConvertBF16ToFloat32(%#04x) = %#08x", h, math.Float32bits(got[i]))
		}
		want := h
		if h&0x7fff > 0x7f80 {
			want |= 0x40
		}
		if back[i] != want {
			t.Fatalf("round trip of %#04x gave %#04x", h, back[i])
		}
	}
}

func TestRoundBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randSlice(r, 1000)
	y := make([]float32, len(x))
	RoundBF16(y, x)
	for i, v := range x {
		if want := Float32FromBF16(BF16FromFloat32(v)); y[i] != want {
			t.Fatalf("RoundBF16: y[%d] = %v, want %v", i, y[i], want)
		}
		if d := math.Abs(float64(y[i] - v)); d > math.Abs(float64(v))/256 {
			t.Fatalf("RoundBF16(%v) = %v: error above 2^-8 relative", v, y[i])
		}
	}
	RoundBF16(x, x) // in place
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("in-place RoundBF16 differs at %d", i)
		}
	}
}

// TestConvertGoTwinsOnThisCPU runs the exported conversions with the
// assembly switched off, as a noasm build or an older CPU would.
func TestConvertGoTwinsOnThisCPU(t *testing.T) {
	defer func(b, f bool) { useBF16Asm, useF16Asm = b, f }(useBF16Asm, useF16Asm)
	useBF16Asm, useF16Asm = false, false
	TestBF16RoundExact(t)
	TestBF16Widen(t)
	TestF16AllHalves(t)
}

// TestBF16InterleaveMatchesGo checks the pair packing (VCVTNE2PS2BF16 and
// VPERMW) against its Go twin bitwise on edge floats, at lengths covering
// vector bodies and tails.
func TestBF16InterleaveMatchesGo(t *testing.T) {
	bits := edgeFloat32Bits()
	src := make([]float32, len(bits))
	for i, u := range bits {
		src[i] = math.Float32frombits(u)
	}
	half := len(src) / 2
	lo, hi := src[:half], src[half:2*half]
	for _, n := range []int{0, 1, 15, 16, 17, 33, half} {
		got := make([]uint32, n+1)
		want := make([]uint32, n)
		bf16Interleave(got[:n], lo[:n], hi[:n])
		bf16InterleaveGeneric(want, lo[:n], hi[:n])
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("n=%d: pair %d of (%#08x, %#08x) = %#08x, Go twin %#08x", n, j,
					math.Float32bits(lo[j]), math.Float32bits(hi[j]), got[j], want[j])
			}
		}
		if got[n] != 0 {
			t.Fatalf("n=%d: wrote past the end", n)
		}
	}
}
