package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bf16Kernels returns every bfloat16 kernel usable here, after the probes
// (which run on first use, after the init functions register them).
func bf16Kernels() []*bf16KernelImpl {
	bf16Init()
	return availableBF16Kernels
}

// bf16Active returns the kernel SgemmBF16 uses.
func bf16Active() *bf16KernelImpl {
	bf16Init()
	return activeBF16
}

// bf16Value is the value SgemmBF16 multiplies for x: x rounded to bfloat16
// (nearest even, float32 subnormals flushed to zero).
func bf16Value(x float32) float64 {
	return float64(math.Float32frombits(uint32(bf16RoundFTZ(math.Float32bits(x))) << 16))
}

// randPairs returns n bfloat16 pairs of random values in [-2, 2).
func randPairs(r *rand.Rand, n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		lo := BF16FromFloat32(float32(r.Float64()*4 - 2))
		hi := BF16FromFloat32(float32(r.Float64()*4 - 2))
		s[i] = uint32(lo) | uint32(hi)<<16
	}
	return s
}

// TestBF16KernelsMatchGoTwin runs every available bfloat16 micro-kernel and
// a Go kernel of the same tile shape on the same operands (packed and
// strided A) and requires bitwise equal results: both sum the exact
// products in the same order. The AMX kernel (its own summation order, and
// only row-layout A, kp a multiple of 16, alpha 1, beta 0 or 1) must agree
// to within float32 rounding of the sums.
func TestBF16KernelsMatchGoTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, kern := range bf16Kernels() {
		twin := newBF16GoKernel(kern.mr, kern.nr)
		mr, nr := kern.mr, kern.nr
		for _, kp := range []int{1, 2, 3, 5, 16, 64, 193} {
			for _, layout := range []string{"packed", "rows"} {
				if kern.amx && (kp%16 != 0 || layout == "packed") {
					continue
				}
				rsa, csa := 1, mr
				if layout == "rows" {
					rsa, csa = kp+3, 1
				}
				a := randPairs(r, (mr-1)*rsa+(kp-1)*csa+1)
				b := randPairs(r, kp*nr)
				for _, ab := range [][2]float32{{1, 0}, {0.75, 0}, {1, 1}, {-1.5, 0.5}} {
					if kern.amx && ab[0] != 1 {
						continue
					}
					ldc := nr + 5
					c0 := randSlice(r, mr*ldc)
					got := append([]float32(nil), c0...)
					want := append([]float32(nil), c0...)
					kern.fn(kp, &a[0], rsa, csa, &b[0], &got[0], ldc, ab[0], ab[1])
					twin.fn(kp, &a[0], rsa, csa, &b[0], &want[0], ldc, ab[0], ab[1])
					for i := 0; i < mr; i++ {
						for j := 0; j < ldc; j++ {
							g, w := got[i*ldc+j], want[i*ldc+j]
							if j >= nr {
								if g != c0[i*ldc+j] {
									t.Fatalf("%s: wrote outside the tile at (%d,%d)", kern.name, i, j)
								}
								continue
							}
							exact := (ab[1] == 0 || ab == [2]float32{1, 1}) && !kern.amx
							// |terms| <= 4, 2*kp of them: bound the rounding
							// of two different summation orders.
							tol := float64(2*kp+4) * 4 * 0x1p-23
							if exact && g != w || !exact && math.Abs(float64(g-w)) > tol {
								t.Fatalf("%s kp=%d %s alpha=%v beta=%v: c(%d,%d) = %v, Go twin %v", kern.name, kp, layout, ab[0], ab[1], i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestBF16KernelTilesEqualsCalls requires a kernel's many-tile entry
// point (the AMX kernel's, which loads its tile configuration once a
// call) to write bitwise what one call per tile writes, rows of A a
// stride apart (padded past the tile) and C rows ldc apart, and nothing
// beside the tiles.
func TestBF16KernelTilesEqualsCalls(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	ran := false
	for _, kern := range bf16Kernels() {
		if kern.tiles == nil {
			continue
		}
		ran = true
		mr, nr := kern.mr, kern.nr
		for _, tiles := range []int{1, 3} {
			for _, kp := range []int{16, 48} {
				for _, beta := range []float32{0, 1} {
					rsa := kp + 2
					stride := mr*rsa + 5
					a := randPairs(r, tiles*stride)
					b := randPairs(r, kp*nr)
					ldc := nr + 3
					c0 := randSlice(r, tiles*mr*ldc)
					got := append([]float32(nil), c0...)
					want := append([]float32(nil), c0...)
					kern.tiles(tiles, kp, &a[0], rsa, stride, &b[0], &got[0], ldc, beta)
					for i := 0; i < tiles; i++ {
						kern.fn(kp, &a[i*stride], rsa, 1, &b[0], &want[i*mr*ldc], ldc, 1, beta)
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s tiles=%d kp=%d beta=%v: c[%d] = %v, one call a tile %v", kern.name, tiles, kp, beta, i, got[i], want[i])
						}
						if i%ldc >= nr && got[i] != c0[i] {
							t.Fatalf("%s: wrote beside the tiles at c[%d]", kern.name, i)
						}
					}
				}
			}
		}
	}
	if !ran {
		t.Skip("no kernel here runs several tiles a call (AMX)")
	}
}

// checkGemmBF16 runs SgemmBF16 with kernel kern on one case and compares it
// with a float64 reference over the bfloat16-rounded inputs: the error of
// a float32 sum of k exact products is at most about k*2^-24 times the sum
// of their magnitudes. It also checks that nothing outside the m x n window
// of C is written, and returns C. A nil kern runs the exported SgemmBF16.
func checkGemmBF16(t *testing.T, kern *bf16KernelImpl, nt int, r *rand.Rand, transA, transB bool, m, n, k int, alpha, beta float32) []float32 {
	t.Helper()
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	lda, ldb, ldc := colsA+3, colsB+1, n+2
	a := randSlice(r, rowsA*lda)
	b := randSlice(r, rowsB*ldb)
	c := randSlice(r, m*ldc)
	c0 := append([]float32(nil), c...)
	if beta == 0 {
		c[0] = float32(math.NaN()) // must not be read
	}
	if kern == nil || alpha == 0 || k == 0 {
		SgemmBF16(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	} else {
		sgemmBF16With(kern, nt, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
	// op(A) and op(B) rounded, as float64, row-major m x k and n x k.
	ra, rb := make([]float64, m*k), make([]float64, n*k)
	for p := 0; p < k; p++ {
		for i := 0; i < m; i++ {
			if transA {
				ra[i*k+p] = bf16Value(a[p*lda+i])
			} else {
				ra[i*k+p] = bf16Value(a[i*lda+p])
			}
		}
		for j := 0; j < n; j++ {
			if transB {
				rb[j*k+p] = bf16Value(b[j*ldb+p])
			} else {
				rb[j*k+p] = bf16Value(b[p*ldb+j])
			}
		}
	}
	for i := 0; i < m; i++ {
		for j := 0; j < ldc; j++ {
			got := c[i*ldc+j]
			if j >= n {
				if got != c0[i*ldc+j] {
					t.Fatalf("%s m=%d n=%d k=%d: wrote C(%d,%d) outside the window", kernName(kern), m, n, k, i, j)
				}
				continue
			}
			var ref, mag float64
			for p, av := range ra[i*k : i*k+k] {
				x := av * rb[j*k+p]
				ref += x
				mag += math.Abs(x)
			}
			ref *= float64(alpha)
			mag *= math.Abs(float64(alpha))
			if beta != 0 {
				ref += float64(beta) * float64(c0[i*ldc+j])
				mag += math.Abs(float64(beta) * float64(c0[i*ldc+j]))
			}
			tol := float64(k+3)*0x1p-24*mag + 1e-30
			if d := math.Abs(float64(got) - ref); !(d <= tol) {
				t.Fatalf("%s transA=%v transB=%v m=%d n=%d k=%d alpha=%v beta=%v: C(%d,%d) = %v, reference %v (|diff| %g > %g)",
					kernName(kern), transA, transB, m, n, k, alpha, beta, i, j, got, ref, d, tol)
			}
		}
	}
	return c
}

// TestSgemmBF16Public runs the exported entry point, which also takes the
// small-k route (rounded copies and Sgemm) and the swapped route
// (transposed A, n < m) when the kernel is AMX.
func TestSgemmBF16Public(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	// {300, 40, 500} with transA takes the swapped route on AMX.
	for _, s := range []gemmCase{{100, 40, 9}, {7, 13, 5}, {33, 70, 31}, {33, 70, 32}, {65, 33, 129}, {300, 40, 500}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			checkGemmBF16(t, nil, 0, r, tr[0], tr[1], s.m, s.n, s.k, 1, 0)
			checkGemmBF16(t, nil, 0, r, tr[0], tr[1], s.m, s.n, s.k, 0.5, -1)
		}
	}
}

func TestSgemmBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	shapes := smallUnderRace(append([]gemmCase{{14, 32, 2}, {28, 64, 800}, {3, 40, 9}, {200, 70, 385}}, testShapes...))
	for _, kern := range bf16Kernels() {
		for _, s := range shapes {
			for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, ab := range [][2]float32{{1, 0}, {-0.5, 1.25}} {
					for _, nt := range []int{1, 3} {
						checkGemmBF16(t, kern, nt, r, tr[0], tr[1], s.m, s.n, s.k, ab[0], ab[1])
					}
				}
			}
		}
	}
}

// TestSgemmBF16AsmEqualsGo checks the whole SgemmBF16 bitwise between the
// assembly kernel and the Go twin (alpha = 1, beta = 0: every C element is
// the same float32 sum in the same order, whatever the tile shape).
func TestSgemmBF16AsmEqualsGo(t *testing.T) {
	var kerns []*bf16KernelImpl
	for _, k := range bf16Kernels() {
		if !k.amx {
			kerns = append(kerns, k)
		}
	}
	if len(kerns) < 2 {
		t.Skip("no AVX512_BF16 kernel on this CPU/build")
	}
	for _, s := range []gemmCase{{65, 33, 129}, {100, 150, 800}, {15, 100, 1001}, {29, 47, 33}} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}} {
			var results [][]float32
			for _, kern := range kerns {
				r := rand.New(rand.NewPCG(5, uint64(s.k)))
				results = append(results, checkGemmBF16(t, kern, 2, r, tr[0], tr[1], s.m, s.n, s.k, 1, 0))
			}
			for i := range results[0] {
				if math.Float32bits(results[0][i]) != math.Float32bits(results[1][i]) {
					t.Fatalf("%v trans=%v: C[%d]: %s %v, %s %v", s, tr, i,
						kerns[0].name, results[0][i], kerns[1].name, results[1][i])
				}
			}
		}
	}
}

func TestSgemmBF16Special(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	// alpha == 0 and k == 0 scale C only; beta == 0 never reads C.
	checkGemmBF16(t, bf16Active(), 1, r, false, false, 5, 6, 7, 0, 0.5)
	checkGemmBF16(t, bf16Active(), 1, r, false, false, 5, 6, 0, 1, 2)
	checkGemmBF16(t, bf16Active(), 1, r, false, false, 5, 6, 7, 1, 0)
	// Bad arguments panic like Sgemm's.
	defer func() {
		if recover() == nil {
			t.Fatal("SgemmBF16 with a short A did not panic")
		}
	}()
	SgemmBF16(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
}

// TestSgemmBF16Rounds checks that the inputs really are rounded to bfloat16
// (not used at float32 precision): 1 + 2^-9 rounds to 1.
func TestSgemmBF16Rounds(t *testing.T) {
	a := []float32{1 + 0x1p-9, 1 + 0x1p-7}
	b := []float32{1, 1}
	c := make([]float32, 1)
	SgemmBF16(false, false, 1, 1, 2, 1, a, 2, b, 1, 0, c, 1)
	if want := float32(2 + 0x1p-7); c[0] != want {
		t.Fatalf("SgemmBF16 = %v, want %v", c[0], want)
	}
}

func ExampleSgemmBF16() {
	a := []float32{1, 2, 3, 4}          // 2x2
	b := []float32{0.5, 0.25, 1, 1.001} // 1.001 rounds to the bfloat16 1
	c := make([]float32, 4)
	SgemmBF16(false, false, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2)
	fmt.Println(c)
	// Output: [2.5 2.25 5.5 4.75]
}

func kernName(k *bf16KernelImpl) string {
	if k == nil {
		return "SgemmBF16"
	}
	return k.name
}

// TestBF16KernelSelection checks that the hardware kernels this CPU has are
// available (so that the tests above exercise them) and that the exported
// reports agree with the selection.
func TestBF16KernelSelection(t *testing.T) {
	var names []string
	for _, k := range bf16Kernels() {
		names = append(names, k.name)
	}
	t.Logf("bfloat16 kernels: %v, active %s", names, BF16KernelName())
	if hasAVX512BF16 && len(bf16Kernels()) < 2 {
		t.Fatal("CPU has AVX512_BF16 but no assembly bfloat16 kernel is available")
	}
	if BF16KernelName() != bf16Active().name || HasFastBF16() != (bf16Active() != bf16KernelGeneric) {
		t.Fatalf("BF16KernelName %q / HasFastBF16 %v disagree with the active kernel %q", BF16KernelName(), HasFastBF16(), bf16Active().name)
	}
}
