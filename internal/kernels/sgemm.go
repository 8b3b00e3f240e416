package kernels

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// kernelImpl describes a register-blocked micro-kernel. fn computes a full
// mr x nr tile C = alpha*A*B + beta*C from an mr x k sliver of A with
// element (i,p) at a[i*rsa+p*csa] (packed: rsa=1, csa=mr) and a k x nr
// sliver of B with element (p,j) at b[p*ldb+j] (packed: ldb=nr), k >= 1;
// C is not read when beta == 0.
type kernelImpl struct {
	name   string
	mr, nr int
	fn     func(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32)
	packA  bool // always pack A (never read it in place)
}

var (
	// active is the micro-kernel used by Sgemm; init functions in the
	// architecture files replace it with the fastest supported one.
	active = kernelGeneric
	// availableKernels lists every kernel usable on this CPU (for tests).
	availableKernels = []*kernelImpl{kernelGeneric}
)

// Cache blocking (Goto/BLIS loop nest, see doc.go). A transposed op(B) is
// packed once per call (per nc column block) into kc x nr micro-panels shared
// by all goroutines; in the packed-A path an mc x kc block of op(A) is packed
// per item and stays in L2; the micro-kernel streams a kc x nr sliver of B
// and an mr x kc sliver of A through L1.
var (
	blockMC = 168
	blockKC = 256
	blockNC = 2048
	// Narrow problems (ceil(n/nr) <= directMaxPanels) and problems whose A
	// rows do not alias in L1 skip packing A and use blockKCDirect as the k
	// block.
	directMaxPanels = 4
	blockKCDirect   = 384
	maxL1Conflicts  = 7
	// forceA/forceB override the choices for tests: 1 direct, -1 packed.
	forceA, forceB = 0, 0
)

// l1Conflicts estimates the worst set occupancy that an unpacked mr x kc
// sliver of op(A) causes in a 64-set, 64-byte-line (32 KiB, 8-way) L1 data
// cache, relative to the sliver's start.
func l1Conflicts(lda int, transA bool, mr, kc int) int {
	var sets [64]int
	touch := func(start, bytes int) {
		for l := start / 64; l <= (start+bytes-1)/64; l++ {
			sets[l%64]++
		}
	}
	if !transA { // mr rows of kc contiguous floats, lda apart
		for i := 0; i < mr; i++ {
			touch(i*lda*4, kc*4)
		}
	} else { // kc runs of mr contiguous floats, lda apart
		for p := 0; p < kc; p++ {
			touch(p*lda*4, mr*4)
		}
	}
	worst := 0
	for _, n := range sets {
		worst = max(worst, n)
	}
	return worst
}

// Problems with fewer flops than this run on the calling goroutine only.
var parallelMinFlops = float64(1 << 20)

var numThreads atomic.Int64

// SetThreads sets the number of goroutines Sgemm may use. n <= 0 restores
// the default, runtime.GOMAXPROCS(0).
func SetThreads(n int) {
	if n < 0 {
		n = 0
	}
	numThreads.Store(int64(n))
}

// Threads returns the number of goroutines Sgemm may use.
func Threads() int {
	if n := int(numThreads.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// KernelName reports which micro-kernel Sgemm uses on this machine
// ("avx512-14x32", "avx2-6x16", "neon-8x12" or "go-4x4").
func KernelName() string { return active.name }

func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("kernels: Sgemm: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	// Stored shapes: A is rowsA x colsA, B is rowsB x colsB.
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	if lda < max(1, colsA) {
		panic(fmt.Sprintf("kernels: Sgemm: lda=%d < %d", lda, colsA))
	}
	if ldb < max(1, colsB) {
		panic(fmt.Sprintf("kernels: Sgemm: ldb=%d < %d", ldb, colsB))
	}
	if ldc < max(1, n) {
		panic(fmt.Sprintf("kernels: Sgemm: ldc=%d < %d", ldc, n))
	}
	need := func(rows, cols, ld int) int {
		if rows == 0 || cols == 0 {
			return 0
		}
		return (rows-1)*ld + cols
	}
	if m > 0 && n > 0 && k > 0 {
		if len(a) < need(rowsA, colsA, lda) {
			panic(fmt.Sprintf("kernels: Sgemm: len(a)=%d too short", len(a)))
		}
		if len(b) < need(rowsB, colsB, ldb) {
			panic(fmt.Sprintf("kernels: Sgemm: len(b)=%d too short", len(b)))
		}
	}
	if len(c) < need(m, n, ldc) {
		panic(fmt.Sprintf("kernels: Sgemm: len(c)=%d too short", len(c)))
	}
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C, row-major. op(A) is m x k,
// op(B) is k x n, C is m x n. lda/ldb/ldc are row strides of the stored
// matrices; transA/transB select the transpose (op(X) = Xᵀ), in which case
// A is stored k x m and B is stored n x k. When beta == 0, C is not read (NaN
// or Inf in C do not propagate); when alpha == 0 or k == 0, A and B are not
// read. Only the m x n window of C is written.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmThreads(Threads(), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmSerial is Sgemm on the calling goroutine alone. Callers that
// already run in parallel (an op splitting its batch into blocks of
// images, one GEMM per block on each core) use it: splitting each of
// their GEMMs again would only add synchronisation. Results are bitwise
// those of Sgemm (the split never changes a sum's order).
func SgemmSerial(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmThreads(1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func sgemmThreads(nt int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	sgemmWith(active, nt, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// scaleC computes C = beta*C (C = 0 when beta == 0).
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// sgemmWith runs the blocked GEMM with kernel kern on up to nt goroutines
// (the caller plus nt-1 pool workers). Arguments are already validated,
// m, n, k >= 1 and alpha != 0.
func sgemmWith(kern *kernelImpl, nt int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if nt > 1 && 2*float64(m)*float64(n)*float64(k) < parallelMinFlops {
		nt = 1
	}
	nr := kern.nr
	// Column blocks of C (jc loop) and super-blocks of k bound the size of
	// the shared packed-B buffer.
	ncMax := splitEven(n, max(blockNC/nr, 1)*nr, nr)
	ncPad := ceilDiv(ncMax, nr) * nr
	kbMax := splitEven(k, max(maxPackedB/ncPad, 1), 1)
	for jc := 0; jc < n; jc += ncMax {
		nc := min(ncMax, n-jc)
		for p0 := 0; p0 < k; p0 += kbMax {
			kb := min(kbMax, k-p0)
			betaEff := beta
			if p0 > 0 {
				betaEff = 1
			}
			j := &gemmJob{
				kern: kern, transA: transA, transB: transB,
				m: m, nc: nc, kb: kb, jc: jc, p0: p0,
				alpha: alpha, beta: betaEff,
				a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc,
			}
			j.plan(nt)
			bb := bPool.Get().(*packedB)
			bb.s = grow(bb.s, kb*j.ncPad)
			j.bp = bb.s
			runParticipants(min(nt, j.packItems+j.items), func() {
				ws := getWorkspace()
				j.run(ws)
				wsPool.Put(ws)
			})
			bPool.Put(bb)
		}
	}
}

// transAItemPanels is the fewest row panels of an item when A is stored
// transposed (plan).
const transAItemPanels = 8

// maxPackedB bounds the floats of op(B) packed at once (16 MiB).
var maxPackedB = 4 << 20

// gemmJob is one parallel region: C[:, jc:jc+nc] (+)= alpha*op(A)[:, p0:p0+kb]
// * op(B)[p0:p0+kb, jc:jc+nc]. Its work is a list of items claimed through an
// atomic counter by whichever goroutines take part, so a worker that starts
// late (or never) only changes who does the work. Items [0, packItems) pack
// one k block of op(B) each into the shared buffer bp; the remaining items
// each compute one mcItem x ncItem block of C over the whole k range (after
// waiting for all of B to be packed), so no two items write the same C.
type gemmJob struct {
	kern           *kernelImpl
	transA, transB bool
	m, nc, kb      int
	jc, p0         int
	alpha, beta    float32
	a              []float32
	lda            int
	b              []float32
	ldb            int
	c              []float32
	ldc            int

	bp      []float32 // packed op(B): k block at pc holds panel jr at bp[pc*ncPad+jr*kc:]
	ncPad   int
	kcMax   int
	direct  bool // read A in place instead of packing it
	directB bool // read B in place; bp holds only the ragged last panel

	packItems      int
	packSplit      int // packing items per k block (groups of B's panels)
	mcItem, ncItem int
	mItems, items  int

	next   atomic.Int64 // next item to claim
	packed atomic.Int64 // packing items finished
	done   atomic.Int64 // compute items finished
}

// plan chooses the A and B access modes, the k blocking and the work items
// for up to nt goroutines.
func (j *gemmJob) plan(nt int) {
	mr, nr := j.kern.mr, j.kern.nr
	nPanels := ceilDiv(j.nc, nr)
	j.ncPad = nPanels * nr
	// Reading A in place (direct) avoids packing it and wins whenever A is
	// used by few B panels, and also for wide problems unless the A rows
	// alias in the L1 cache (e.g. lda a multiple of 1024 floats).
	kc := splitEven(j.kb, blockKCDirect, 1)
	switch {
	case forceA != 0:
		j.direct = forceA > 0
	case j.kern.packA:
	case nPanels <= directMaxPanels || l1Conflicts(j.lda, j.transA, mr, kc) <= maxL1Conflicts:
		j.direct = true
	}
	if j.direct {
		j.kcMax = kc
	} else {
		j.kcMax = splitEven(j.kb, blockKC, 1)
	}
	mPanels := ceilDiv(j.m, mr)
	// A non-transposed B is read in place: its rows are already
	// contiguous runs of nr values, and measurements on every shape tried
	// showed packing it does not pay. Only its ragged last panel is packed.
	j.directB = !j.transB && forceB >= 0
	j.packItems = ceilDiv(j.kb, j.kcMax)
	j.packSplit = 1
	if j.directB {
		j.ncPad = nr // only the ragged panel is packed
		if j.nc%nr == 0 {
			j.packItems = 0
		}
	} else if nt > 1 {
		// A wide B packed as one item per k block kept the other
		// goroutines waiting (a dense layer's input gradient, B 1600
		// columns by 128, ran at 1.06x of one thread on two): split each
		// k block's packing into groups of panels.
		j.packSplit = min(nPanels, 2*nt)
		j.packItems *= j.packSplit
	}

	mcPanels := mPanels
	target := 1
	if nt > 1 {
		// Many small items: dynamic claiming balances the load, and in
		// direct mode items cost nothing extra.
		target = 8 * nt
		mcPanels = max(1, mPanels/target)
		if j.transA {
			// A stored transposed: an item reads mcItem floats of each
			// of its k rows, so items of one panel (14 floats) read
			// every cache line of A twice, from two cores: the CNN's
			// filter-gradient GEMM (288x64, depth 7744) ran slower on
			// two threads than on one. 8 panels per item read whole
			// lines.
			mcPanels = max(mcPanels, min(mPanels, transAItemPanels))
		}
	}
	if !j.direct {
		mcPanels = min(mcPanels, max(blockMC/mr, 1))
	}
	j.mcItem = mcPanels * mr
	j.mItems = ceilDiv(mPanels, mcPanels)
	nItems := 1
	if j.mItems < target {
		nItems = min(nPanels, ceilDiv(target, j.mItems))
	}
	j.ncItem = ceilDiv(nPanels, nItems) * nr
	nItems = ceilDiv(j.nc, j.ncItem)
	j.items = j.mItems * nItems
}

// run claims and executes items until none are left.
func (j *gemmJob) run(ws *workspace) {
	total := int64(j.packItems + j.items)
	for {
		it := j.next.Add(1) - 1
		if it >= total {
			return
		}
		if it < int64(j.packItems) {
			nr := j.kern.nr
			pc := int(it) / j.packSplit * j.kcMax
			kc := min(j.kcMax, j.kb-pc)
			j0, j1 := 0, j.nc
			if j.directB {
				j0 = j.nc / nr * nr // just the ragged panel
			} else if j.packSplit > 1 {
				// group g of the k block's panels
				g, per := int(it)%j.packSplit, ceilDiv(ceilDiv(j.nc, nr), j.packSplit)
				j0, j1 = min(g*per*nr, j.nc), min((g+1)*per*nr, j.nc)
				if j0 == j1 {
					j.packed.Add(1)
					continue
				}
			}
			// panel jr of a k block starts at jr*nr*kc (bPanel)
			off := pc * j.ncPad
			if !j.directB {
				off += j0 * kc
			}
			packB(j.transB, j.b, j.ldb, j.p0+pc, j.jc+j0, kc, j1-j0, nr, j.bp[off:])
			j.packed.Add(1)
			continue
		}
		for spins := 0; j.packed.Load() < int64(j.packItems); spins++ {
			if spins > 64 {
				runtime.Gosched()
			}
		}
		ci := int(it) - j.packItems
		j.compute(ws, ci%j.mItems, ci/j.mItems)
		j.done.Add(1)
	}
}

// bPanel returns the k block at pc (depth kc) of the B panel starting at
// column jcol of the job, and its row stride.
func (j *gemmJob) bPanel(pc, kc, jcol int) (*float32, int) {
	nr := j.kern.nr
	switch {
	case !j.directB:
		return &j.bp[pc*j.ncPad+jcol*kc], nr
	case jcol+nr <= j.nc:
		return &j.b[(j.p0+pc)*j.ldb+j.jc+jcol], j.ldb
	default:
		return &j.bp[pc*nr], nr
	}
}

// compute does item (mi, ni): rows [i0, i0+mc) and columns [jc+j0, ...+nc)
// of C, accumulating over all k blocks.
func (j *gemmJob) compute(ws *workspace, mi, ni int) {
	kern := j.kern
	mr, nr := kern.mr, kern.nr
	i0 := mi * j.mcItem
	mc := min(j.mcItem, j.m-i0)
	j0 := ni * j.ncItem
	nc := min(j.ncItem, j.nc-j0)
	ldc := j.ldc
	c := j.c[i0*ldc+j.jc+j0:]
	ws.tmp = grow(ws.tmp, mr*nr)

	if j.direct {
		ws.a = grow(ws.a, mr*j.kcMax)
		rsa, csa := j.lda, 1
		if j.transA {
			rsa, csa = 1, j.lda
		}
		for pc := 0; pc < j.kb; pc += j.kcMax {
			kc := min(j.kcMax, j.kb-pc)
			beta := j.beta
			if pc > 0 {
				beta = 1
			}
			for ir := 0; ir < mc; ir += mr {
				mrEff := min(mr, mc-ir)
				var ap *float32
				rs, cs := rsa, csa
				if mrEff == mr {
					ap = &j.a[(i0+ir)*rsa+(j.p0+pc)*csa]
				} else {
					packA(j.transA, j.a, j.lda, i0+ir, j.p0+pc, mrEff, kc, mr, ws.a)
					ap, rs, cs = &ws.a[0], 1, mr
				}
				for jr := 0; jr < nc; jr += nr {
					bp, ldb := j.bPanel(pc, kc, j0+jr)
					microTile(ws, kern, kc, ap, rs, cs, bp, ldb, mrEff, min(nr, nc-jr),
						j.alpha, beta, c[ir*ldc+jr:], ldc)
				}
			}
		}
		return
	}

	ws.a = grow(ws.a, ceilDiv(mc, mr)*mr*j.kcMax)
	for pc := 0; pc < j.kb; pc += j.kcMax {
		kc := min(j.kcMax, j.kb-pc)
		beta := j.beta
		if pc > 0 {
			beta = 1
		}
		packA(j.transA, j.a, j.lda, i0, j.p0+pc, mc, kc, mr, ws.a)
		for jr := 0; jr < nc; jr += nr {
			bp, ldb := j.bPanel(pc, kc, j0+jr)
			for ir := 0; ir < mc; ir += mr {
				microTile(ws, kern, kc, &ws.a[ir*kc], 1, mr, bp, ldb, min(mr, mc-ir), min(nr, nc-jr),
					j.alpha, beta, c[ir*ldc+jr:], ldc)
			}
		}
	}
}

// workspace holds one goroutine's private buffers (64-byte aligned).
type workspace struct {
	a   []float32 // packed A block (or the ragged row panel in direct mode)
	tmp []float32 // one mr x nr tile for edge tiles
}

// packedB holds the shared packed op(B) of one call. It has its own pool so
// that the large buffer is not handed to a goroutine that only needs a
// workspace (which would make the next call reallocate it).
type packedB struct{ s []float32 }

var (
	wsPool = sync.Pool{New: func() any { return new(workspace) }}
	bPool  = sync.Pool{New: func() any { return new(packedB) }}
)

func getWorkspace() *workspace { return wsPool.Get().(*workspace) }

// alignedFloats returns a zeroed slice of n float32 whose first element is
// 64-byte aligned.
func alignedFloats(n int) []float32 {
	s := make([]float32, n+16)
	off := int(uintptr(unsafe.Pointer(&s[0]))&63) / 4
	if off != 0 {
		off = 16 - off
	}
	return s[off : off+n : off+n]
}

func grow(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	return alignedFloats(n)
}

// splitEven returns a block size <= bs, a multiple of unit, such that n is
// covered by ceil(n/bs) blocks of nearly equal size.
func splitEven(n, bs, unit int) int {
	blocks := ceilDiv(n, bs)
	return min(bs, ceilDiv(ceilDiv(n, blocks), unit)*unit)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// microTile computes the mrEff x nrEff tile of C at c[0] with the
// micro-kernel. Full tiles are written directly; edge tiles are computed into
// ws.tmp and the valid part copied out.
func microTile(ws *workspace, kern *kernelImpl, kc int, ap *float32, rsa, csa int, bp *float32, ldb, mrEff, nrEff int, alpha, beta float32, c []float32, ldc int) {
	mr, nr := kern.mr, kern.nr
	if mrEff == mr && nrEff == nr {
		kern.fn(kc, ap, rsa, csa, bp, ldb, &c[0], ldc, alpha, beta)
		return
	}
	tmp := ws.tmp
	kern.fn(kc, ap, rsa, csa, bp, ldb, &tmp[0], nr, 1, 0)
	for i := 0; i < mrEff; i++ {
		crow := c[i*ldc : i*ldc+nrEff]
		trow := tmp[i*nr : i*nr+nrEff]
		if beta == 0 {
			for j, v := range trow {
				crow[j] = alpha * v
			}
		} else {
			for j, v := range trow {
				crow[j] = alpha*v + beta*crow[j]
			}
		}
	}
}
