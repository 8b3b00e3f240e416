package ops

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/kernels"
)

// roundBenchInput is one activation of the seed CNN (64x26x26x32 floats)
// on which the cast op's rounding loop (roundBFloat16Slice) and
// internal/kernels' vectorised RoundBF16 agree bit for bit.
func roundBenchInput(b *testing.B) []float32 {
	x := make([]float32, 64*26*26*32)
	for i := range x {
		x[i] = float32(math.Sin(float64(i))) * 3
	}
	d1, d2 := make([]float32, len(x)), make([]float32, len(x))
	roundBFloat16Slice(d1, x)
	kernels.RoundBF16(d2, x)
	for i := range d1 {
		if math.Float32bits(d1[i]) != math.Float32bits(d2[i]) {
			b.Fatalf("x[%d] = %v: cast op %v, kernels.RoundBF16 %v", i, x[i], d1[i], d2[i])
		}
	}
	return x
}

// BenchmarkRoundBFloat16CastOp times the cast op's rounding loop.
func BenchmarkRoundBFloat16CastOp(b *testing.B) {
	x := roundBenchInput(b)
	d := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		roundBFloat16Slice(d, x)
	}
}

// BenchmarkRoundBFloat16Kernels times kernels.RoundBF16 on the same input.
func BenchmarkRoundBFloat16Kernels(b *testing.B) {
	x := roundBenchInput(b)
	d := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		kernels.RoundBF16(d, x)
	}
}
