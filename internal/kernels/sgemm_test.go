package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
)

type gemmCase struct {
	m, n, k int
}

var testShapes = []gemmCase{
	{1, 1, 1}, {7, 13, 5}, {65, 33, 129}, {200, 300, 17}, {14, 32, 1}, {6, 16, 3},
	{15, 33, 257}, {28, 64, 300}, {13, 31, 7}, {1, 100, 50}, {100, 1, 50},
	{3, 5, 600}, {64, 128, 160}, {337, 65, 400}, {5, 2100, 3}, {29, 47, 33},
	{50, 700, 40}, {129, 257, 65},
}

// shapesForRun is testShapes, or under -short (the arm64 tests run under
// qemu, where the float64 reference dominates) and under -race the shapes
// of at most 300k multiply-adds, which still cover ragged edges of every
// kernel's tile, one-row/one-column problems, two column blocks (n=2100)
// and deep k. Under -race every kernel, blocking mode and thread count
// still runs, on these shapes: what the race detector checks is how the
// threads share A, B and C, which these shapes exercise; the larger
// shapes' numbers are checked by the run without -race (the sweep took
// over 7 minutes under -race, past go test's 10-minute timeout with the
// package's other tests on a loaded 2-core machine).
func shapesForRun() []gemmCase {
	if testing.Short() {
		return small(testShapes)
	}
	return smallUnderRace(testShapes)
}

// smallUnderRace returns shapes, or under -race those of at most 300k
// multiply-adds (see shapesForRun).
func smallUnderRace(shapes []gemmCase) []gemmCase {
	if !racetest.Enabled {
		return shapes
	}
	return small(shapes)
}

// small returns the shapes of at most 300k multiply-adds.
func small(shapes []gemmCase) []gemmCase {
	var s []gemmCase
	for _, c := range shapes {
		if c.m*c.n*c.k <= 300_000 {
			s = append(s, c)
		}
	}
	return s
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.Float64()*2 - 1)
	}
	return s
}

// checkGemm runs gemm on one case and compares it with SgemmRef, checking
// that nothing outside the m x n window of C is touched.
func checkGemm(t *testing.T, gemm func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int),
	r *rand.Rand, transA, transB bool, m, n, k int, alpha, beta float32, padA, padB, padC int) {
	t.Helper()
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	lda, ldb, ldc := colsA+padA, colsB+padB, n+padC
	a := randSlice(r, rowsA*lda)
	b := randSlice(r, rowsB*ldb)
	const guard = 37
	cbuf := randSlice(r, guard+m*ldc+guard)
	orig := append([]float32(nil), cbuf...)
	gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, cbuf[guard:guard+m*ldc], ldc)

	// Explicit op(A) (m x k) and op(B)ᵀ (n x k), so that the reference dot
	// products below run over contiguous rows.
	opA := make([]float64, m*k)
	opBT := make([]float64, n*k)
	for i := 0; i < m; i++ {
		for p := 0; p < k; p++ {
			if transA {
				opA[i*k+p] = float64(a[p*lda+i])
			} else {
				opA[i*k+p] = float64(a[i*lda+p])
			}
		}
	}
	for j := 0; j < n; j++ {
		for p := 0; p < k; p++ {
			if transB {
				opBT[j*k+p] = float64(b[j*ldb+p])
			} else {
				opBT[j*k+p] = float64(b[p*ldb+j])
			}
		}
	}

	for idx := range cbuf {
		rel := idx - guard
		i, j := rel/ldc, rel%ldc
		inside := rel >= 0 && i < m && j < n
		if !inside {
			if cbuf[idx] != orig[idx] {
				t.Fatalf("tA=%v tB=%v %dx%dx%d: wrote outside C at buffer index %d", transA, transB, m, n, k, idx)
			}
			continue
		}
		// Reference value (float64) and the error bound of a length-k
		// float32 dot product.
		var dot, s float64
		ar, br := opA[i*k:i*k+k], opBT[j*k:j*k+k]
		for p, av := range ar {
			dot += av * br[p]
			s += math.Abs(av * br[p])
		}
		want := float64(alpha) * dot
		if beta != 0 {
			want += float64(beta) * float64(orig[idx])
		}
		s = math.Abs(float64(alpha))*s + math.Abs(float64(beta)*float64(orig[idx]))
		tol := 1e-6*float64(k+2)*s + 1e-30
		if d := math.Abs(float64(cbuf[idx]) - want); d > tol || math.IsNaN(float64(cbuf[idx])) {
			t.Fatalf("tA=%v tB=%v %dx%dx%d alpha=%v beta=%v: C[%d,%d]=%v want %v (tol %g)",
				transA, transB, m, n, k, alpha, beta, i, j, cbuf[idx], want, tol)
		}
	}
}

func gemmWithKernel(kern *kernelImpl, nt int) func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	return func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
		if m == 0 || n == 0 {
			return
		}
		if alpha == 0 || k == 0 {
			scaleC(m, n, beta, c, ldc)
			return
		}
		sgemmWith(kern, nt, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

var alphaBetas = [][2]float32{{1, 0}, {1, 1}, {-0.5, 2}, {2.5, -1}, {0, 0.5}, {0, 0}}

// blockingMode forces one of the two A paths (or the default heuristic) and
// optionally tiny cache blocks so that every loop runs several times with
// ragged last blocks.
type blockingMode struct {
	name          string
	direct        int // 1: always read A in place, -1: always pack A, 0: heuristic
	directB       int // same for B
	mc, kc, kcDir int // 0: keep default
	nc, packedB   int // 0: keep default
}

var blockingModes = []blockingMode{
	{name: "default"},
	{name: "direct", direct: 1, directB: -1},
	{name: "packed", direct: -1, directB: -1},
	{name: "direct-AB", direct: 1, directB: 1},
	{name: "packedA-directB", direct: -1, directB: 1},
	{name: "direct-small", direct: 1, kcDir: 7},
	{name: "packed-small", direct: -1, directB: -1, mc: 20, kc: 7, nc: 40, packedB: 3000},
	{name: "direct-smallB", direct: 1, directB: 1, kcDir: 9, nc: 70, packedB: 2000},
}

func (bm blockingMode) set() (restore func()) {
	old := [...]int{blockMC, blockKC, blockKCDirect, forceA, blockNC, maxPackedB, forceB}
	forceA, forceB = bm.direct, bm.directB
	if bm.mc > 0 {
		blockMC = bm.mc
	}
	if bm.kc > 0 {
		blockKC = bm.kc
	}
	if bm.kcDir > 0 {
		blockKCDirect = bm.kcDir
	}
	if bm.nc > 0 {
		blockNC = bm.nc
	}
	if bm.packedB > 0 {
		maxPackedB = bm.packedB
	}
	return func() {
		blockMC, blockKC, blockKCDirect, forceA, blockNC, maxPackedB, forceB = old[0], old[1], old[2], old[3], old[4], old[5], old[6]
	}
}

var transCombos = [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}}

func TestSgemmKernels(t *testing.T) {
	defer func(v float64) { parallelMinFlops = v }(parallelMinFlops)
	parallelMinFlops = 0 // split even tiny problems across goroutines
	r := rand.New(rand.NewPCG(1, 2))
	for _, kern := range availableKernels {
		for _, bm := range blockingModes {
			for _, nt := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/%s/threads=%d", kern.name, bm.name, nt), func(t *testing.T) {
					defer bm.set()()
					gemm := gemmWithKernel(kern, nt)
					for si, s := range shapesForRun() {
						for ti, tr := range transCombos {
							// Cycle through alpha/beta and padding variants.
							ab := alphaBetas[(si+ti)%len(alphaBetas)]
							pad := (si + ti) % 4
							checkGemm(t, gemm, r, tr[0], tr[1], s.m, s.n, s.k, ab[0], ab[1], pad, (pad+2)%4, pad+1)
						}
					}
				})
			}
		}
	}
}

func TestSgemmAlphaBeta(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, kern := range availableKernels {
		gemm := gemmWithKernel(kern, 2)
		for _, ab := range alphaBetas {
			for _, tr := range transCombos {
				checkGemm(t, gemm, r, tr[0], tr[1], 37, 45, 19, ab[0], ab[1], 1, 2, 3)
				checkGemm(t, gemm, r, tr[0], tr[1], 300, 64, 40, ab[0], ab[1], 0, 0, 0)
			}
		}
	}
}

func TestSgemmRef(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, s := range []gemmCase{{1, 1, 1}, {7, 13, 5}, {20, 9, 33}} {
		for _, tr := range transCombos {
			checkGemm(t, SgemmRef, r, tr[0], tr[1], s.m, s.n, s.k, 1.5, -0.5, 1, 2, 3)
			checkGemm(t, SgemmRef, r, tr[0], tr[1], s.m, s.n, s.k, 1, 0, 0, 0, 0)
		}
	}
}

func TestSgemmPublic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	t.Logf("kernel %s, threads %d", KernelName(), Threads())
	for _, s := range smallUnderRace(testShapes) {
		for _, tr := range transCombos {
			checkGemm(t, Sgemm, r, tr[0], tr[1], s.m, s.n, s.k, 1, 0, 0, 0, 0)
			checkGemm(t, Sgemm, r, tr[0], tr[1], s.m, s.n, s.k, 0.75, -1.25, 2, 1, 5)
		}
	}
	// Larger problems that are split across goroutines. Under -race two of
	// the transpositions: the split is the same for all four, and the
	// float64 references of the others took most of the test's 23 s there.
	combos := transCombos[:]
	if racetest.Enabled {
		combos = [][2]bool{transCombos[0], transCombos[3]}
	}
	for _, s := range []gemmCase{{300, 64, 288}, {288, 64, 1000}, {64, 288, 64}, {64, 128, 1600}, {256, 300, 256}} {
		for _, tr := range combos {
			checkGemm(t, Sgemm, r, tr[0], tr[1], s.m, s.n, s.k, 1, 0.5, 0, 0, 0)
		}
	}
}

func TestSgemmConcurrent(t *testing.T) {
	// Several goroutines calling Sgemm at once share the worker pool.
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 99))
			m, n, k := 150+g*7, 96, 80
			a, b := randSlice(r, m*k), randSlice(r, k*n)
			for it := 0; it < 20; it++ {
				c := make([]float32, m*n)
				want := make([]float32, m*n)
				Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
				SgemmRef(false, false, m, n, k, 1, a, k, b, n, 0, want, n)
				for i := range c {
					if d := math.Abs(float64(c[i] - want[i])); d > 1e-4 {
						errs <- fmt.Sprintf("goroutine %d: c[%d]=%v want %v", g, i, c[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestSgemmThreadsSetting(t *testing.T) {
	defer SetThreads(0)
	SetThreads(1)
	if Threads() != 1 {
		t.Fatalf("Threads() = %d after SetThreads(1)", Threads())
	}
	r := rand.New(rand.NewPCG(7, 8))
	checkGemm(t, Sgemm, r, false, true, 200, 300, 17, 1, 0, 0, 0, 0)
	SetThreads(0)
	if Threads() < 1 {
		t.Fatalf("default Threads() = %d", Threads())
	}
}

func TestSgemmSpecialValues(t *testing.T) {
	nan := float32(math.NaN())
	for _, kern := range availableKernels {
		gemm := gemmWithKernel(kern, 1)
		m, n, k := 17, 35, 9
		a := make([]float32, m*k)
		b := make([]float32, k*n)
		for i := range a {
			a[i] = 1
		}
		for i := range b {
			b[i] = 2
		}
		// beta == 0: NaN in C must not propagate.
		c := make([]float32, m*n)
		for i := range c {
			c[i] = nan
		}
		gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
		for i, v := range c {
			if v != float32(2*k) {
				t.Fatalf("%s beta=0: c[%d]=%v want %v", kern.name, i, v, 2*k)
			}
		}
		// alpha == 0: A and B are not read, C = beta*C.
		for i := range a {
			a[i] = nan
		}
		for i := range c {
			c[i] = 3
		}
		gemm(false, false, m, n, k, 0, a, k, b, n, 2, c, n)
		for i, v := range c {
			if v != 6 {
				t.Fatalf("%s alpha=0: c[%d]=%v want 6", kern.name, i, v)
			}
		}
		// k == 0 and beta == 0 zeroes C.
		gemm(false, false, m, n, 0, 1, nil, 1, nil, n, 0, c, n)
		for i, v := range c {
			if v != 0 {
				t.Fatalf("%s k=0: c[%d]=%v want 0", kern.name, i, v)
			}
		}
	}
	// Empty problems are no-ops.
	Sgemm(false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1)
}

func TestSgemmPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	a, b, c := make([]float32, 12), make([]float32, 12), make([]float32, 9)
	mustPanic("short c", func() { Sgemm(false, false, 3, 4, 3, 1, a, 3, b, 4, 0, c, 4) })
	mustPanic("bad lda", func() { Sgemm(false, false, 3, 3, 4, 1, a, 3, b, 3, 0, c, 3) })
	mustPanic("short a", func() { Sgemm(true, false, 3, 3, 5, 1, a, 3, b, 3, 0, c, 3) })
	mustPanic("negative", func() { Sgemm(false, false, -1, 3, 3, 1, a, 3, b, 3, 0, c, 3) })
}

func TestSaxpySdot(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 3, 7, 8, 9, 31, 32, 33, 100, 1000, 1031} {
		x := randSlice(r, n)
		y := randSlice(r, n+3)
		y0 := append([]float32(nil), y...)
		Saxpy(-1.5, x, y)
		for i := range y {
			want := y0[i]
			if i < n {
				want += -1.5 * x[i]
			}
			if math.Abs(float64(y[i]-want)) > 1e-6 {
				t.Fatalf("Saxpy n=%d: y[%d]=%v want %v", n, i, y[i], want)
			}
		}
		var want, s float64
		for i := 0; i < n; i++ {
			want += float64(x[i]) * float64(y[i])
			s += math.Abs(float64(x[i]) * float64(y[i]))
		}
		if got := Sdot(x, y); math.Abs(float64(got)-want) > 1e-6*float64(n+1)*(s+1) {
			t.Fatalf("Sdot n=%d: got %v want %v", n, got, want)
		}
	}
}

// TestDot4x4OnePassEqualsTwoPass: the one-pass Go kernel loop (chosen on
// architectures with 32 FP registers) and the two-pass one give the same
// bits, special values included.
func TestDot4x4OnePassEqualsTwoPass(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, k := range []int{1, 2, 3, 17, 256} {
		a, b := randSlice(r, 4*k), randSlice(r, 4*k)
		if k == 17 {
			a[5], b[9], a[30] = float32(math.Inf(1)), float32(math.NaN()), 1e-40
		}
		one, two := dot4x4PackedOnePass(a, b), dot4x4Packed(a, b)
		for i := range one {
			if math.Float32bits(one[i]) != math.Float32bits(two[i]) && !(one[i] != one[i] && two[i] != two[i]) {
				t.Fatalf("k=%d [%d]: one pass %v, two passes %v", k, i, one[i], two[i])
			}
		}
	}
}
