package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSeedCNNGEMMs times each GEMM of the seed CNN's train step at
// batch 64 (im2col convolutions and dense layers: forward, input and
// filter gradients) in float32 and bfloat16 on bfloat16-exact operands,
// as a layer under mixed_bfloat16 runs them.
//
//	go test ./ops/ -run '^$' -bench SeedCNNGEMMs -cpu 1
func BenchmarkSeedCNNGEMMs(b *testing.B) {
	shapes := []struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{
		{"conv1_y", false, false, 64 * 26 * 26, 32, 9},
		{"conv1_dw", true, false, 9, 32, 64 * 26 * 26},
		{"conv2_y", false, false, 64 * 11 * 11, 64, 288},
		{"conv2_dx", false, true, 64 * 11 * 11, 288, 64},
		{"conv2_dw", true, false, 288, 64, 64 * 11 * 11},
		{"dense1_y", false, false, 64, 128, 1600},
		{"dense1_dx", false, true, 64, 1600, 128},
		{"dense1_dw", true, false, 1600, 128, 64},
	}
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range shapes {
		a, bb := make([]float32, s.m*s.k), make([]float32, s.k*s.n)
		for i := range a {
			a[i] = RoundBFloat16(r.Float32() - .5)
		}
		for i := range bb {
			bb[i] = RoundBFloat16(r.Float32() - .5)
		}
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		c := make([]float32, s.m*s.n)
		for _, prec := range []string{"float32", PrecisionBFloat16} {
			gm := modeOf("bench", prec)
			b.Run(fmt.Sprintf("%s/%s", s.name, prec), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					gm.sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
				}
				b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
