package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// gemmBenchShapes are the im2col GEMMs of one training step at batch 64 of
// the seed models (examples/internal/models): forward M = batch*H*W,
// K = kh*kw*Cin, N = Cout; the weight gradient dW = colsᵀ·dY (transA) and
// the input gradient dCols = dY·Wᵀ (transB); plus a square reference.
var gemmBenchShapes = []struct {
	name           string
	transA, transB bool
	m, n, k        int
}{
	{"cnn_conv1_fwd", false, false, 64 * 26 * 26, 32, 9},
	{"cnn_conv2_fwd", false, false, 64 * 11 * 11, 64, 288},
	{"cnn_conv2_dW", true, false, 288, 64, 64 * 11 * 11},
	{"cnn_conv2_dX", false, true, 64 * 11 * 11, 288, 64},
	{"cnn_dense_fwd", false, false, 64, 128, 1600},
	{"res_stem_fwd", false, false, 64 * 16 * 16, 64, 7 * 7 * 3},
	{"res_64_fwd", false, false, 64 * 8 * 8, 64, 9 * 64},
	{"res_64_dW", true, false, 9 * 64, 64, 64 * 8 * 8},
	{"res_64_dX", false, true, 64 * 8 * 8, 9 * 64, 64},
	{"res_128_fwd", false, false, 64 * 4 * 4, 128, 9 * 128},
	{"res_256_fwd", false, false, 64 * 2 * 2, 256, 9 * 256},
	{"square1024", false, false, 1024, 1024, 1024},
}

// BenchmarkGEMM compares Sgemm (float32) and SgemmBF16 on the seed models'
// shapes, on one thread ("t1") and on Threads() goroutines ("tN"):
//
//	go test -run XXX -bench GEMM -cpu 1 -count 5 ./internal/kernels
func BenchmarkGEMM(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 9))
	for _, s := range gemmBenchShapes {
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		a := randSlice(r, s.m*s.k)
		bm := randSlice(r, s.k*s.n)
		c := randSlice(r, s.m*s.n)
		flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		for _, impl := range []struct {
			name string
			fn   func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
		}{{"f32", Sgemm}, {"bf16", SgemmBF16}} {
			for _, threads := range []int{1, 0} {
				tn := "t1"
				if threads == 0 {
					tn = "tN"
				}
				b.Run(fmt.Sprintf("%s_%dx%dx%d/%s/%s", s.name, s.m, s.n, s.k, impl.name, tn), func(b *testing.B) {
					defer SetThreads(0)
					SetThreads(threads)
					for b.Loop() {
						impl.fn(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
					}
					b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkBF16Kernel measures each bfloat16 micro-kernel alone on
// cache-resident operands (its compute peak; compare BenchmarkKernel).
func BenchmarkBF16Kernel(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 10))
	for _, kern := range bf16Kernels() {
		for _, kp := range []int{5, 32, 192} {
			rsa, csa := 1, kern.mr
			if kern.amx { // row layout, whole 16-pair steps
				kp = max(16, kp/16*16)
				rsa, csa = kp, 1
			}
			b.Run(fmt.Sprintf("%s/k=%d", kern.name, 2*kp), func(b *testing.B) {
				a := randPairs(r, kern.mr*kp)
				bp := randPairs(r, kern.nr*kp)
				c := alignedFloats(kern.mr * kern.nr)
				for b.Loop() {
					kern.fn(kp, &a[0], rsa, csa, &bp[0], &c[0], kern.nr, 1, 0)
				}
				b.ReportMetric(4*float64(kern.mr*kern.nr*kp)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkConvertBF16(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 11))
	x := randSlice(r, 4096)
	h := make([]uint16, 4096)
	b.SetBytes(6 * 4096)
	for b.Loop() {
		ConvertFloat32ToBF16(h, x)
	}
}

func BenchmarkConvertF16(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 12))
	x := randSlice(r, 4096)
	h := make([]uint16, 4096)
	b.SetBytes(6 * 4096)
	for b.Loop() {
		ConvertFloat32ToF16(h, x)
	}
}
