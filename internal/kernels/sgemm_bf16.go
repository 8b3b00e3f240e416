package kernels

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gokeras/gokeras/internal/vec"
)

// bf16KernelImpl describes a bfloat16 micro-kernel. fn computes a full
// mr x nr tile C = alpha*A*B + beta*C (C is not read when beta == 0) over kp
// k-pairs. Operands are bfloat16 pairs in uint32 words, the even k index in
// the low half: A pair (i, q) = op(A)(i, 2q) | op(A)(i, 2q+1)<<16 at
// a[i*rsa+q*csa]; B is packed, pair (q, j) at b[q*nr+j]. For every lane the
// kernel accumulates in float32, per pair first the odd then the even
// product, which is what VDPBF16PS does; as the product of two bfloat16
// values is exact in float32, the Go twin computes the same sums.
type bf16KernelImpl struct {
	name   string
	mr, nr int
	fn     func(kp int, a *uint32, rsa, csa int, b *uint32, c *float32, ldc int, alpha, beta float32)
	// amx marks the AMX kernel: kp a multiple of 16, A always in row
	// layout, and only alpha = 1, beta = 0 or 1 (see bf16Kernel32x32AMX).
	amx bool
	// tiles, where set, runs fn's full tiles down one panel of B in one
	// call (alpha 1, beta 0 or 1; tile t's A from a[t*stride], its C
	// from c[t*mr*ldc]): the AMX kernel's tile configuration is loaded
	// once a call.
	tiles func(tiles, kp int, a *uint32, rsa, stride int, b *uint32, c *float32, ldc int, beta float32)
	// kc overrides bf16BlockKC (the AMX kernel's fixed cost per call wants
	// deeper blocks).
	kc int
}

// kpAlign is the multiple of k-pairs the kernel consumes per call.
func (k *bf16KernelImpl) kpAlign() int {
	if k.amx {
		return 16
	}
	return 1
}

var (
	// activeBF16 is the micro-kernel used by SgemmBF16.
	activeBF16 = bf16KernelGeneric
	// availableBF16Kernels lists every bfloat16 kernel usable on this CPU.
	availableBF16Kernels = []*bf16KernelImpl{bf16KernelGeneric}
	// bf16Probes, appended to by the architecture files' init functions,
	// add their kernels to the lists above. They run on the first use of
	// SgemmBF16 (bf16Init), not at start-up: the AMX probe asks the OS for
	// the tile state, which programs that never use bfloat16 should not
	// pay for (larger signal frames).
	bf16Probes []func()
	bf16Once   sync.Once
)

// bf16Init runs the kernel probes once.
func bf16Init() {
	bf16Once.Do(func() {
		for _, probe := range bf16Probes {
			probe()
		}
	})
}

// bf16KernelGeneric is the pure-Go twin of the assembly kernel.
var bf16KernelGeneric = newBF16GoKernel(4, 16)

// newBF16GoKernel returns a Go micro-kernel for mr x nr tiles (nr <= 32).
func newBF16GoKernel(mr, nr int) *bf16KernelImpl {
	return &bf16KernelImpl{
		name: "go-" + itoa(mr) + "x" + itoa(nr), mr: mr, nr: nr,
		fn: func(kp int, a *uint32, rsa, csa int, b *uint32, c *float32, ldc int, alpha, beta float32) {
			as := unsafe.Slice(a, (mr-1)*rsa+(kp-1)*csa+1)
			bs := unsafe.Slice(b, kp*nr)
			cs := unsafe.Slice(c, (mr-1)*ldc+nr)
			bf16TileGo(mr, nr, kp, as, rsa, csa, bs, cs, ldc, alpha, beta)
		},
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// bf16TileGo computes one mr x nr tile (see bf16KernelImpl).
func bf16TileGo(mr, nr, kp int, a []uint32, rsa, csa int, b []uint32, c []float32, ldc int, alpha, beta float32) {
	var acc [32]float32
	for i := 0; i < mr; i++ {
		row := acc[:nr]
		clear(row)
		for q := 0; q < kp; q++ {
			d := a[i*rsa+q*csa]
			alo := math.Float32frombits(d << 16)
			ahi := math.Float32frombits(d &^ 0xffff)
			bq := b[q*nr : q*nr+nr]
			for j, e := range bq {
				s := row[j] + ahi*math.Float32frombits(e&^0xffff)
				row[j] = s + alo*math.Float32frombits(e<<16)
			}
		}
		crow := c[i*ldc : i*ldc+nr]
		for j, v := range row {
			if beta == 0 {
				crow[j] = alpha * v
			} else {
				crow[j] = alpha*v + beta*crow[j]
			}
		}
	}
}

// BF16KernelName reports which micro-kernel SgemmBF16 uses on this machine
// ("avx512bf16-14x32" or the pure-Go "go-4x16").
func BF16KernelName() string {
	bf16Init()
	return activeBF16.name
}

// HasFastBF16 reports whether SgemmBF16 runs on a hardware bfloat16 kernel
// (AMX or AVX512_BF16). Without one SgemmBF16 rounds copies of its inputs
// and runs Sgemm: the same results, a little slower than Sgemm.
func HasFastBF16() bool {
	bf16Init()
	return activeBF16 != bf16KernelGeneric
}

// Blocking of SgemmBF16 (k sizes in k values, even): a kc x nr bfloat16
// sliver of B (24 KiB at kc = 384, nr = 32) stays in L1, an mc x kc block of
// A in L2, and a kc x nc block of B in L3.
var (
	bf16BlockMC = 168
	bf16BlockKC = 384
	bf16BlockNC = 2048
)

// SgemmBF16 computes C = alpha*op(A)*op(B) + beta*C like Sgemm (same
// arguments, row-major, same handling of beta == 0, alpha == 0 and k == 0),
// but with the elements of op(A) and op(B) first rounded to bfloat16 (to
// nearest even; float32 subnormals become zero) and the products accumulated
// in float32. Its kernel is chosen at start-up (BF16KernelName):
//
//   - "amx-32x32": AMX TDPBF16PS tiles, on Linux CPUs with AMX_BF16 once
//     the kernel grants the process the tile state (GOKERAS_NO_AMX=1 turns
//     it off). Several times Sgemm's rate; for k < 32 the tiles would
//     mostly multiply padding, so such calls run Sgemm on rounded copies.
//   - "avx512bf16-14x32": VDPBF16PS, on CPUs with AVX512_BF16 but no
//     usable AMX. Note that some CPUs (Sapphire Rapids among them) issue
//     VDPBF16PS at half the rate of FMA, which makes it slower than Sgemm.
//   - "go-4x16": the pure-Go twin of the VDPBF16PS kernel (noasm builds,
//     other CPUs), which computes the same sums in the same order, so
//     their results are equal except where a partial sum underflows below
//     2^-126 (the instruction flushes it to zero). It is slower than Sgemm's
//     kernels, so SgemmBF16 then runs Sgemm on rounded copies of A and B
//     instead (same products, float32 sums in Sgemm's order); the twin
//     stays as the reference the assembly is tested against.
//
// All of them agree with a float64 product of the rounded inputs to within
// float32 summation error (about k*2^-24 relative to the sum of |terms|).
func SgemmBF16(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmBF16Threads(Threads(), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmBF16Serial is SgemmBF16 on the calling goroutine alone (see
// SgemmSerial).
func SgemmBF16Serial(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmBF16Threads(1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func sgemmBF16Threads(nt int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	bf16Init()
	if activeBF16 == bf16KernelGeneric || activeBF16.amx && k < bf16AMXMinK {
		sgemmRoundedBF16(nt, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if activeBF16.amx && transA && n < m && n*m <= bf16SwapMaxC {
		sgemmSwappedBF16(activeBF16, nt, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	sgemmBF16With(activeBF16, nt, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemmBF16With runs the blocked bfloat16 GEMM with kernel kern on up to nt
// goroutines. Arguments are validated, m, n, k >= 1 and alpha != 0.
func sgemmBF16With(kern *bf16KernelImpl, nt int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if nt > 1 && 2*float64(m)*float64(n)*float64(k) < parallelMinFlops {
		nt = 1
	}
	nr := kern.nr
	ncMax := splitEven(n, max(bf16BlockNC/nr, 1)*nr, nr)
	ncPad := ceilDiv(ncMax, nr) * nr
	// k super-blocks bound the packed B buffer (maxPackedB words).
	kunit := 2 * kern.kpAlign()
	kbMax := splitEven(k, max(maxPackedB/ncPad*2/kunit*kunit, kunit), kunit)
	for jc := 0; jc < n; jc += ncMax {
		nc := min(ncMax, n-jc)
		for p0 := 0; p0 < k; p0 += kbMax {
			kb := min(kbMax, k-p0)
			betaEff := beta
			if p0 > 0 {
				betaEff = 1
			}
			j := &bf16Job{
				kern: kern, transA: transA, transB: transB,
				m: m, nc: nc, kb: kb, jc: jc, p0: p0,
				alpha: alpha, beta: betaEff,
				a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc,
			}
			j.plan(nt)
			bb := bf16BPool.Get().(*bf16Buf)
			bb.s = growU32(bb.s, j.kpOf(kb)*j.ncPad)
			j.bp = bb.s
			runParticipants(min(nt, j.packItems+j.items), j.run)
			bf16BPool.Put(bb)
		}
	}
}

// bf16Job is one parallel region of SgemmBF16: C[:, jc:jc+nc] (+)=
// alpha*op(A)[:, p0:p0+kb] * op(B)[p0:p0+kb, jc:jc+nc]. As in gemmJob,
// items [0, packItems) each pack one k block of op(B) into bp (as bfloat16
// pairs), the others each compute an mcItem x ncItem block of C over all of
// kb once B is packed.
type bf16Job struct {
	kern           *bf16KernelImpl
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

	// bp: the k block at pc holds panel jr (columns jr..jr+nr) at
	// bp[pc/2*ncPad+jr*kpBlock:], pair (q, j) at q*nr+j within it.
	bp             []uint32
	ap             []uint32 // op(A) packed by the caller (SgemmBF16PackedAB), rows apLd words apart
	apLd           int
	ncPad, kcMax   int
	packItems      int
	mcItem, ncItem int
	mItems, items  int

	next, packed atomic.Int64
}

func (j *bf16Job) plan(nt int) {
	mr, nr := j.kern.mr, j.kern.nr
	nPanels := ceilDiv(j.nc, nr)
	j.ncPad = nPanels * nr
	kunit := 2 * j.kern.kpAlign()
	kc := bf16BlockKC
	if j.kern.kc > 0 {
		kc = j.kern.kc
	}
	j.kcMax = splitEven(j.kb, max(kc/kunit, 1)*kunit, kunit)
	j.packItems = ceilDiv(j.kb, j.kcMax)
	mPanels := ceilDiv(j.m, mr)
	mcPanels, target := mPanels, 1
	if nt > 1 {
		target = 8 * nt
		mcPanels = max(1, mPanels/target)
	}
	mcPanels = min(mcPanels, max(bf16BlockMC/mr, 1))
	j.mcItem = mcPanels * mr
	j.mItems = ceilDiv(mPanels, mcPanels)
	nItems := 1
	if j.mItems < target {
		nItems = min(nPanels, ceilDiv(target, j.mItems))
	}
	j.ncItem = ceilDiv(nPanels, nItems) * nr
	j.items = j.mItems * ceilDiv(j.nc, j.ncItem)
}

// kpOf returns the k-pairs of a k block of kc values as the kernel consumes
// them (padded with zero pairs).
func (j *bf16Job) kpOf(kc int) int {
	u := j.kern.kpAlign()
	return ceilDiv(ceilDiv(kc, 2), u) * u
}

func (j *bf16Job) run() {
	ws := bf16WSPool.Get().(*bf16Workspace)
	defer bf16WSPool.Put(ws)
	total := int64(j.packItems + j.items)
	for {
		it := j.next.Add(1) - 1
		if it >= total {
			return
		}
		if it < int64(j.packItems) {
			pc := int(it) * j.kcMax
			kc := min(j.kcMax, j.kb-pc)
			kp := j.kpOf(kc)
			dst := j.bp[pc/2*j.ncPad : (pc/2+kp)*j.ncPad]
			if j.transB {
				packRowPairs(ws, dst, j.b, j.ldb, j.jc, j.p0+pc, j.nc, kc, kp, j.kern.nr)
			} else {
				packColPairs(ws, dst, j.b, j.ldb, j.p0+pc, j.jc, kc, j.nc, kp, j.kern.nr)
			}
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
	}
}

// compute does item (mi, ni): rows [i0, i0+mc) and columns [j0, j0+nc) of
// the job's column block, over all k blocks.
func (j *bf16Job) compute(ws *bf16Workspace, mi, ni int) {
	kern := j.kern
	mr, nr := kern.mr, kern.nr
	i0 := mi * j.mcItem
	mc := min(j.mcItem, j.m-i0)
	j0 := ni * j.ncItem
	nc := min(j.ncItem, j.nc-j0)
	mcPad := ceilDiv(mc, mr) * mr
	ws.a = growU32(ws.a, mcPad*j.kpOf(j.kcMax))
	ws.tmp = grow(ws.tmp, mr*nr)
	c := j.c[i0*j.ldc+j.jc+j0:]
	for pc := 0; pc < j.kb; pc += j.kcMax {
		kc := min(j.kcMax, j.kb-pc)
		kp := j.kpOf(kc)
		beta := j.beta
		if pc > 0 {
			beta = 1
		}
		// op(A) block: non-transposed rows are converted in place order
		// (row i at ws.a[i*kp:], rsa = kp, csa = 1); a transposed A is
		// interleaved into mr-row panels (rsa = 1, csa = mr).
		var rsa, csa, panelStride int
		aBlock := ws.a
		switch {
		case j.ap != nil: // one k block: pc is 0
			aBlock = j.ap[i0*j.apLd:]
			rsa, csa, panelStride = j.apLd, 1, mr*j.apLd
		case !j.transA:
			for i := 0; i < mc; i++ {
				row := j.a[(i0+i)*j.lda+j.p0+pc:]
				d := ws.a[i*kp : (i+1)*kp]
				cvtPairs(d, row[:kc])
				clear(d[ceilDiv(kc, 2):])
			}
			clear(ws.a[mc*kp : mcPad*kp])
			rsa, csa, panelStride = kp, 1, mr*kp
		case kern.amx:
			packTransRows(ws, ws.a[:mcPad*kp], j.a, j.lda, j.p0+pc, i0, kc, mc, kp)
			rsa, csa, panelStride = kp, 1, mr*kp
		default:
			packColPairs(ws, ws.a[:mcPad*kp], j.a, j.lda, j.p0+pc, i0, kc, mc, kp, mr)
			rsa, csa, panelStride = 1, mr, mr*kp
		}
		bBlock := j.bp[pc/2*j.ncPad:]
		for jr := 0; jr < nc; jr += nr {
			bp := &bBlock[(j0+jr)*kp]
			nrEff := min(nr, nc-jr)
			ir0 := 0
			if full := mc / mr; kern.tiles != nil && full > 0 && nrEff == nr && j.alpha == 1 && (beta == 0 || beta == 1) {
				kern.tiles(full, kp, &aBlock[0], rsa, panelStride, bp, &c[jr], j.ldc, beta)
				ir0 = full * mr
			}
			for ir := ir0; ir < mc; ir += mr {
				ap := &aBlock[ir/mr*panelStride]
				mrEff := min(mr, mc-ir)
				cc := c[ir*j.ldc+jr:]
				if mrEff == mr && nrEff == nr && (!kern.amx || j.alpha == 1 && (beta == 0 || beta == 1)) {
					kern.fn(kp, ap, rsa, csa, bp, &cc[0], j.ldc, j.alpha, beta)
					continue
				}
				tmp := ws.tmp
				kern.fn(kp, ap, rsa, csa, bp, &tmp[0], nr, 1, 0)
				for i := 0; i < mrEff; i++ {
					crow := cc[i*j.ldc : i*j.ldc+nrEff]
					trow := tmp[i*nr : i*nr+nrEff]
					if beta == 0 {
						for jj, v := range trow {
							crow[jj] = j.alpha * v
						}
					} else {
						for jj, v := range trow {
							crow[jj] = j.alpha*v + beta*crow[jj]
						}
					}
				}
			}
		}
	}
}

// packColPairs packs the kc x nc block at (p0, j0) of a row-major matrix s
// (row stride ld; element (p, j) at s[(p0+p)*ld+j0+j]) into ceil(nc/w)
// panels of w columns of bfloat16 pairs along p: panel r holds pair (q, j)
// at dst[r*w*kp+q*w+j], kp >= ceil(kc/2); padding is zero. It packs a
// non-transposed B (w = nr) and a transposed A (w = mr). Each pair of
// rows is converted straight into the whole panels, w columns at a time
// (an odd kc's last row paired with zeros); a last partial panel goes
// element by element.
func packColPairs(ws *bf16Workspace, dst []uint32, s []float32, ld, p0, j0, kc, nc, kp, w int) {
	full := nc / w * w // columns in whole panels
	ws.zero = grow(ws.zero, w)
	zero := ws.zero[:w]
	clear(zero)
	ws.edge = grow(ws.edge, 2*w)
	for q := 0; q < kp; q++ {
		if 2*q >= kc {
			for jr := 0; jr < nc; jr += w {
				clear(dst[jr*kp+q*w:][:w])
			}
			continue
		}
		lo := s[(p0+2*q)*ld+j0:][:nc]
		var hi []float32 // nil: an odd kc's last row, paired with zeros
		if 2*q+1 < kc {
			hi = s[(p0+2*q+1)*ld+j0:][:nc]
		}
		for jr := 0; jr < full; jr += w {
			h := zero
			if hi != nil {
				h = hi[jr : jr+w]
			}
			bf16Interleave(dst[jr*kp+q*w:][:w], lo[jr:jr+w], h)
		}
		if full < nc {
			// the partial panel through zero-padded copies, so that it
			// too is converted by the vector kernel (a stem convolution's
			// 147 columns leave 19 in it on every row)
			tl, th := ws.edge[:w], ws.edge[w:2*w]
			clear(tl[nc-full:])
			copy(tl, lo[full:])
			clear(th)
			if hi != nil {
				copy(th, hi[full:nc])
			}
			bf16Interleave(dst[full*kp+q*w:][:w], tl, th)
		}
	}
}

// packRowPairs packs the kc x nc block at (p0, j0) of the transpose of a
// row-major matrix s (element (p, j) at s[(j0+j)*ld+p0+p], as a transposed
// B) into the panel layout of packColPairs.
func packRowPairs(ws *bf16Workspace, dst []uint32, s []float32, ld, j0, p0, nc, kc, kp, w int) {
	ws.row = growU32(ws.row, kp)
	row := ws.row[:kp]
	clear(row[ceilDiv(kc, 2):])
	for jr := 0; jr < nc; jr += w {
		d := dst[jr*kp : (jr+w)*kp]
		wEff := min(w, nc-jr)
		for jj := 0; jj < wEff; jj++ {
			cvtPairs(row[:ceilDiv(kc, 2)], s[(j0+jr+jj)*ld+p0:][:kc])
			for q, v := range row {
				d[q*w+jj] = v
			}
		}
		for q := 0; q < kp; q++ {
			clear(d[q*w+wEff : q*w+w])
		}
	}
}

// packTransRows packs the mc x kc block at (i0, p0) of op(A) for a
// transposed A (element (i, p) at s[(p0+p)*ld+i0+i]) in row layout: pair
// (i, q) at dst[i*kp+q], kp >= ceil(kc/2), padding zero (rows past mc too).
// It converts 16 pairs of source rows at a time so that each destination
// row gets a run of 16 words.
func packTransRows(ws *bf16Workspace, dst []uint32, s []float32, ld, p0, i0, kc, mc, kp int) {
	if useBF16Asm && kc >= 32 && mc >= 8 {
		// Transposed in float32 by 8x8 blocks (vec.Transpose), then each
		// row converted as one run: the word-by-word scatter below took
		// a third of a bfloat16 filter gradient (dy's transposition).
		blk := s[p0*ld+i0:]
		if ld != mc { // make the block contiguous first
			ws.t1 = grow(ws.t1, kc*mc)
			for p := 0; p < kc; p++ {
				copy(ws.t1[p*mc:(p+1)*mc], s[(p0+p)*ld+i0:][:mc])
			}
			blk = ws.t1
		}
		ws.t2 = grow(ws.t2, mc*kc)
		vec.Transpose(ws.t2, blk, kc, mc, 0, kc)
		h := ceilDiv(kc, 2)
		for i := 0; i < mc; i++ {
			cvtPairs(dst[i*kp:], ws.t2[i*kc:(i+1)*kc])
			clear(dst[i*kp+h : (i+1)*kp])
		}
		clear(dst[mc*kp:])
		return
	}
	const g = 16
	ws.lo = growU16(ws.lo, g*mc)
	ws.hi = growU16(ws.hi, g*mc)
	for q0 := 0; q0 < kp; q0 += g {
		qn := min(g, kp-q0)
		for qq := 0; qq < qn; qq++ {
			p := 2 * (q0 + qq)
			lo, hi := ws.lo[qq*mc:(qq+1)*mc], ws.hi[qq*mc:(qq+1)*mc]
			if p < kc {
				f32ToBF16(lo, s[(p0+p)*ld+i0:][:mc], true)
			} else {
				clear(lo)
			}
			if p+1 < kc {
				f32ToBF16(hi, s[(p0+p+1)*ld+i0:][:mc], true)
			} else {
				clear(hi)
			}
		}
		lo, hi := ws.lo[:qn*mc], ws.hi[:qn*mc]
		for i := 0; i < mc; i++ {
			d := dst[i*kp+q0 : i*kp+q0+qn]
			for qq := range d {
				d[qq] = uint32(lo[qq*mc+i]) | uint32(hi[qq*mc+i])<<16
			}
		}
	}
	clear(dst[mc*kp:])
}

// bf16SwapMaxC bounds the scratch C of sgemmSwappedBF16 (floats).
var bf16SwapMaxC = 1 << 20

// sgemmSwappedBF16 computes SgemmBF16 through Cᵀ = op(B)ᵀ·op(A)ᵀ into a
// scratch matrix, then C = alpha*(Cᵀ)ᵀ + beta*C. The AMX kernel needs
// op(A) as rows of k-pairs, which costs a transposition when A is stored
// transposed; in the swapped problem that transposition falls on B, the
// smaller operand when n < m (the weight gradients of convolutions:
// m = kh*kw*Cin, n = Cout, k = batch*H*W).
func sgemmSwappedBF16(kern *bf16KernelImpl, nt int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ws := bf16WSPool.Get().(*bf16Workspace) // held until done: ct is its buffer
	defer bf16WSPool.Put(ws)
	ws.ct = grow(ws.ct, n*m)
	ct := ws.ct
	sgemmBF16With(kern, nt, !transB, !transA, n, m, k, 1, b, ldb, a, lda, 0, ct, m)
	for i := 0; i < m; i++ {
		crow := c[i*ldc : i*ldc+n]
		for j := range crow {
			v := alpha * ct[j*m+i]
			if beta != 0 {
				v += beta * crow[j]
			}
			crow[j] = v
		}
	}
}

// bf16AMXMinK: below this depth the AMX kernel (16-pair steps) would mostly
// multiply padding, so SgemmBF16 rounds copies of A and B and runs Sgemm
// (as it always does without a hardware bfloat16 kernel).
var bf16AMXMinK = 32

// sgemmRoundedBF16 computes SgemmBF16 as Sgemm on copies of A and B rounded
// to bfloat16 (the same products, summed by the float32 kernel).
func sgemmRoundedBF16(nt int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	rowsA, rowsB := m, k
	if transA {
		rowsA = k
	}
	if transB {
		rowsB = n
	}
	colsA, colsB := k, n
	if transA {
		colsA = m
	}
	if transB {
		colsB = k
	}
	ws := bf16WSPool.Get().(*bf16Workspace)
	defer bf16WSPool.Put(ws)
	na, nb := (rowsA-1)*lda+colsA, (rowsB-1)*ldb+colsB
	ws.tmp = grow(ws.tmp, na+nb)
	ra, rb := ws.tmp[:na], ws.tmp[na:na+nb]
	roundBF16FTZ(ra, a[:na])
	roundBF16FTZ(rb, b[:nb])
	sgemmWith(active, nt, transA, transB, m, n, k, alpha, ra, lda, rb, ldb, beta, c, ldc)
}

// roundBF16FTZ is RoundBF16 with float32 subnormals flushed to zero, the
// rounding of SgemmBF16's packing.
func roundBF16FTZ(dst, src []float32) {
	var buf [256]uint16
	for len(src) > 0 {
		n := min(len(src), len(buf))
		f32ToBF16(buf[:n], src[:n], true)
		bf16ToF32(dst[:n], buf[:n])
		src, dst = src[n:], dst[n:]
	}
}

// cvtPairsGeneric rounds src to bfloat16 (subnormals flushed) into pairs:
// dst[q] = bf16(src[2q]) | bf16(src[2q+1])<<16, a missing last odd element
// being zero.
func cvtPairsGeneric(dst []uint32, src []float32) {
	n := len(src)
	dst = dst[:ceilDiv(n, 2)]
	for q := 0; q < n/2; q++ {
		dst[q] = uint32(bf16RoundFTZ(math.Float32bits(src[2*q]))) | uint32(bf16RoundFTZ(math.Float32bits(src[2*q+1])))<<16
	}
	if n%2 == 1 {
		dst[n/2] = uint32(bf16RoundFTZ(math.Float32bits(src[n-1])))
	}
}

// bf16Workspace holds one goroutine's private buffers.
type bf16Workspace struct {
	a, row        []uint32
	lo, hi        []uint16
	tmp, ct, zero []float32
	edge          []float32 // packColPairs' partial panel, lo then hi
	t1, t2        []float32 // packTransRows' contiguous and transposed blocks
}

type bf16Buf struct{ s []uint32 }

var (
	bf16WSPool = sync.Pool{New: func() any { return new(bf16Workspace) }}
	bf16BPool  = sync.Pool{New: func() any { return new(bf16Buf) }}
)

// growU32 returns s resized to n words, reallocated 64-byte aligned when
// too small.
func growU32(s []uint32, n int) []uint32 {
	if cap(s) >= n {
		return s[:n]
	}
	f := alignedFloats(n)
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(f))), n)
}

func growU16(s []uint16, n int) []uint16 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]uint16, n)
}
