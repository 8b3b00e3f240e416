package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

// benchShapes are the GEMMs of one training step of the MNIST CNN at batch
// 64 (conv via im2col), plus a square reference problem.
var benchShapes = []struct {
	name           string
	transA, transB bool
	m, n, k        int
}{
	{"conv1_fwd", false, false, 64 * 26 * 26, 32, 9},
	{"conv2_fwd", false, false, 64 * 11 * 11, 64, 288},
	{"conv2_dW_AT", true, false, 288, 64, 64 * 11 * 11},
	{"conv2_dX_BT", false, true, 64 * 11 * 11, 288, 64},
	{"dense_fwd", false, false, 64, 128, 1600},
	{"dense_dW_AT", true, false, 1600, 128, 64},
	{"dense_dX_BT", false, true, 64, 1600, 128},
	{"square512", false, false, 512, 512, 512},
}

func BenchmarkSgemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchShapes {
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
		name := fmt.Sprintf("%s_%dx%dx%d", s.name, s.m, s.n, s.k)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		b.Run(name+"/ours", func(b *testing.B) {
			for b.Loop() {
				Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			report(b)
		})
		b.Run(name+"/ours_1thread", func(b *testing.B) {
			defer SetThreads(0)
			SetThreads(1)
			for b.Loop() {
				Sgemm(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			report(b)
		})
		b.Run(name+"/gonum", func(b *testing.B) {
			tA, tB := blas.NoTrans, blas.NoTrans
			if s.transA {
				tA = blas.Trans
			}
			if s.transB {
				tB = blas.Trans
			}
			var impl gonumblas.Implementation
			for b.Loop() {
				impl.Sgemm(tA, tB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			report(b)
		})
	}
}

func BenchmarkSaxpy(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := randSlice(r, 4096), randSlice(r, 4096)
	b.SetBytes(3 * 4 * 4096)
	for b.Loop() {
		Saxpy(1e-3, x, y)
	}
}

func BenchmarkSdot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 3))
	x, y := randSlice(r, 4096), randSlice(r, 4096)
	b.SetBytes(2 * 4 * 4096)
	var s float32
	for b.Loop() {
		s += Sdot(x, y)
	}
	_ = s
}

// BenchmarkKernel measures each available micro-kernel alone on
// cache-resident packed panels: its compute peak for depth k.
func BenchmarkKernel(b *testing.B) {
	for _, kern := range availableKernels {
		for _, k := range []int{9, 64, 256} {
			b.Run(fmt.Sprintf("%s/k=%d", kern.name, k), func(b *testing.B) {
				a := alignedFloats(kern.mr * k)
				bp := alignedFloats(kern.nr * k)
				c := alignedFloats(kern.mr * kern.nr)
				for i := range a {
					a[i] = 0.5
				}
				for i := range bp {
					bp[i] = 0.25
				}
				for b.Loop() {
					kern.fn(k, &a[0], 1, kern.mr, &bp[0], kern.nr, &c[0], kern.nr, 1, 0)
				}
				b.ReportMetric(2*float64(kern.mr*kern.nr*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
