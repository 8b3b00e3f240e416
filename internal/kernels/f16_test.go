package kernels

import (
	"math"
	"testing"
)

// f16Exact rounds the float32 bit pattern u to float16 by an independent
// method: enumerate the two neighbouring halves from the sorted table of all
// finite halves and pick the nearer (even on a tie; past 65520 it is Inf).
func f16Exact(u uint32, table []float64) uint16 {
	x := float64(math.Float32frombits(u))
	sign := uint16(u>>16) & 0x8000
	switch {
	case x != x:
		return sign | 0x7e00 | uint16(u>>13)&0x3ff
	case math.Abs(x) >= 65520:
		return sign | 0x7c00
	}
	a := math.Abs(x)
	// table[i] is the value of half pattern i for i in [0, 0x7c00).
	lo, hi := 0, 0x7bff
	for lo < hi { // largest i with table[i] <= a
		mid := (lo + hi + 1) / 2
		if table[mid] <= a {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	i := lo
	if i < 0x7bff || a > table[i] {
		next := i + 1
		var vnext float64
		if next == 0x7c00 {
			vnext = 65536
		} else {
			vnext = table[next]
		}
		d0, d1 := a-table[i], vnext-a
		if d1 < d0 || d1 == d0 && i&1 == 1 {
			i = next
		}
	}
	return sign | uint16(i)
}

func halfTable() []float64 {
	t := make([]float64, 0x7c00)
	for i := range t {
		e := i >> 10
		m := float64(i & 0x3ff)
		if e == 0 {
			t[i] = m * math.Pow(2, -24)
		} else {
			t[i] = (1 + m/1024) * math.Pow(2, float64(e-15))
		}
	}
	return t
}

// TestF16AllHalves checks every half pattern: the scalar and vector widening
// agree with the value formula, and rounding the widened value gives the
// pattern back (a signalling NaN comes back quiet).
func TestF16AllHalves(t *testing.T) {
	table := halfTable()
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	got := make([]float32, len(src))
	ConvertF16ToFloat32(got, src)
	back := make([]uint16, len(src))
	ConvertFloat32ToF16(back, got)
	for i, h := range src {
		g := got[i]
		if s := Float32FromF16(h); math.Float32bits(s) != math.Float32bits(g) {
			t.Fatalf("half %#04x: vector widening %#08x, scalar %#08x", h, math.Float32bits(g), math.Float32bits(s))
		}
		e := h >> 10 & 0x1f
		switch {
		case e == 0x1f && h&0x3ff != 0:
			if g == g || math.Signbit(float64(g)) != (h&0x8000 != 0) {
				t.Fatalf("half NaN %#04x widened to %v", h, g)
			}
		case e == 0x1f:
			if !math.IsInf(float64(g), 0) || math.Signbit(float64(g)) != (h&0x8000 != 0) {
				t.Fatalf("half Inf %#04x widened to %v", h, g)
			}
		default:
			want := table[h&0x7fff]
			if h&0x8000 != 0 {
				want = -want
			}
			if float64(g) != want || math.Signbit(float64(g)) != (h&0x8000 != 0) {
				t.Fatalf("half %#04x widened to %v, want %v", h, g, want)
			}
		}
		want := h
		if e == 0x1f && h&0x3ff != 0 {
			want |= 0x200
		}
		if back[i] != want {
			t.Fatalf("round trip of half %#04x gave %#04x", h, back[i])
		}
	}
}

// TestF16RoundExact compares the scalar rounding with the table method, and
// the vector conversion with the scalar one, on edge floats and on every
// float32 midway between two halves and next to it.
func TestF16RoundExact(t *testing.T) {
	table := halfTable()
	bits := edgeFloat32Bits()
	for i := 0; i < 0x7bff; i++ {
		mid := (table[i] + table[i+1]) / 2
		u := math.Float32bits(float32(mid))
		bits = append(bits, u, u+1, u-1, u|0x80000000)
	}
	src := make([]float32, len(bits))
	for i, u := range bits {
		src[i] = math.Float32frombits(u)
	}
	got := make([]uint16, len(src))
	ConvertFloat32ToF16(got, src)
	for i, u := range bits {
		want := f16Exact(u, table)
		if s := F16FromFloat32(src[i]); s != want {
			t.Fatalf("F16FromFloat32(%#08x) = %#04x, exact rounding gives %#04x", u, s, want)
		}
		if got[i] != want {
			t.Fatalf("ConvertFloat32ToF16(%#08x) = %#04x, exact rounding gives %#04x", u, got[i], want)
		}
	}
}

func TestRoundF16(t *testing.T) {
	x := []float32{1, 1.0004883, 65519, 65520, 1e-8, 3e-8, -2.5e-5, 0.1}
	y := make([]float32, len(x))
	RoundF16(y, x)
	for i, v := range x {
		if want := Float32FromF16(F16FromFloat32(v)); math.Float32bits(y[i]) != math.Float32bits(want) {
			t.Fatalf("RoundF16(%v) = %v, want %v", v, y[i], want)
		}
	}
}
