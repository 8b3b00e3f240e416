package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// roundBF16Ref is the rounding of ops.Float32ToBFloat16Bits (and of
// internal/kernels' bf16Round), one value at a time.
func roundBF16Ref(x float32) float32 {
	u := math.Float32bits(x)
	if u&0x7fffffff > 0x7f800000 { // NaN: keep sign and payload top, force quiet
		return math.Float32frombits((u>>16 | 0x0040) << 16)
	}
	return math.Float32frombits((u + 0x7fff + (u>>16)&1) >> 16 << 16)
}

// TestRoundBF16 compares RoundBF16 (the assembly bulk and the Go tail)
// with the scalar rounding of ops.CastToBFloat16, bit for bit: random bit
// patterns (NaNs, infinities and subnormals among them), ties, the
// largest finite values and signed zeros.
func TestRoundBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	var x []float32
	for i := 0; i < 5000; i++ {
		x = append(x, math.Float32frombits(r.Uint32()))
	}
	for _, b := range []uint32{0x7f800000, 0xff800000, 0x7f800001, 0xffbfffff, 0x7fc00000, 0x7f7fffff, 0xff7fffff,
		0x7f7f8000, 0x3f808000, 0x3f818000, 0x3f80ffff, 0x00000001, 0x8000ffff, 0x00008000, 0x00018000, 0, 0x80000000} {
		x = append(x, math.Float32frombits(b))
	}
	for _, n := range []int{0, 1, 15, 16, 17, 100} {
		x = append(x, float32(n)*1.00390625) // ties
	}
	want := make([]float32, len(x))
	for i, v := range x {
		want[i] = roundBF16Ref(v)
	}
	for _, n := range []int{len(x), len(x) - 5, 31, 16, 15, 1, 0} {
		for _, inPlace := range []bool{false, true} {
			got := make([]float32, n)
			src := x[:n]
			if inPlace {
				copy(got, src)
				src = got
			}
			RoundBF16(got, src)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d in place %v: RoundBF16(%#08x) = %#08x, want %#08x",
						n, inPlace, math.Float32bits(x[i]), math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
		}
	}
}

func BenchmarkRoundBF16(b *testing.B) {
	x := rnd(rand.New(rand.NewPCG(1, 1)), 4096)
	b.SetBytes(4 * 4096)
	for i := 0; i < b.N; i++ {
		RoundBF16(x, x)
	}
}

// TestRoundedKernels compares each kernel with its result rounded (Add,
// AddRelu, ScaleShift, ScaleShiftRelu, DualAffine and then RoundBF16)
// bit for bit, NaNs, infinities and subnormals among the values.
func TestRoundedKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	const n = 1000
	vals := func() []float32 {
		x := make([]float32, n)
		for i := range x {
			switch i % 11 {
			case 3:
				x[i] = math.Float32frombits(r.Uint32()) // NaNs, infinities, subnormals
			case 5:
				x[i] = float32(r.NormFloat64()) * 1e-39
			default:
				x[i] = float32(r.NormFloat64())
			}
		}
		return x
	}
	a, b, c, d, e := vals(), vals(), vals(), vals(), vals()
	for _, k := range []struct {
		name           string
		plain, rounded func(dst []float32)
	}{
		{"Add", func(y []float32) { Add(y, a, b) }, func(y []float32) { AddRoundBF16(y, a, b) }},
		{"AddRelu", func(y []float32) { AddRelu(y, a, b) }, func(y []float32) { AddReluRoundBF16(y, a, b) }},
		{"ScaleShift", func(y []float32) { ScaleShift(y, a, b, c) }, func(y []float32) { ScaleShiftRoundBF16(y, a, b, c) }},
		{"ScaleShiftRelu", func(y []float32) { ScaleShiftRelu(y, a, b, c) }, func(y []float32) { ScaleShiftReluRoundBF16(y, a, b, c) }},
		{"DualAffine", func(y []float32) { DualAffine(y, a, b, c, d, e) }, func(y []float32) { DualAffineRoundBF16(y, a, b, c, d, e) }},
	} {
		for _, m := range []int{n, 999, 33, 16, 7, 0} {
			want, got := make([]float32, m), make([]float32, m)
			k.plain(want)
			RoundBF16(want, want)
			k.rounded(got)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s, n=%d: [%d] = %#08x, rounded %s %#08x", k.name, m, i, math.Float32bits(got[i]), k.name, math.Float32bits(want[i]))
				}
			}
		}
	}
}
