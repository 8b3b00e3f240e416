package kernels

import "math"

// Packed operands: a caller that can produce op(B) directly in the
// kernel's bfloat16 panel layout (a convolution's filter gradient, whose
// op(B) is the im2col panel: made from the input image pair by pair,
// it never exists in float32) passes it to SgemmBF16PackedB and skips
// both the float32 copy and SgemmBF16's packing pass.

// BF16PanelWidth is the column width of the panels SgemmBF16PackedB
// takes, that of both hardware bfloat16 kernels.
const BF16PanelWidth = 32

// BF16PackedKPairs returns the k-pairs a packed panel of k values holds
// (ceil(k/2) rounded up to the kernel's multiple, zero pairs after the
// data), and whether SgemmBF16PackedB can run on this machine at all: only
// on a hardware bfloat16 kernel (HasFastBF16).
func BF16PackedKPairs(k int) (kp int, ok bool) {
	bf16Init()
	if activeBF16 == bf16KernelGeneric || activeBF16.nr != BF16PanelWidth {
		return 0, false
	}
	u := activeBF16.kpAlign()
	return ceilDiv(ceilDiv(k, 2), u) * u, true
}

// InterleaveBF16Panels writes bfloat16 pairs of lo and hi (equal
// lengths, a multiple of BF16PanelWidth; hi nil pairs lo with zeros)
// into consecutive panels: for chunk i of BF16PanelWidth columns, word
// j of it goes to dst[i*stride+j]: dst[i*stride+j] = bf16(lo[c]) |
// bf16(hi[c])<<16 with c = i*BF16PanelWidth+j, rounded to nearest even,
// float32 subnormals flushed to zero, as SgemmBF16's packing rounds.
// With stride = BF16PanelWidth*kp and dst at pair q of a panel, it fills
// row q of len(lo)/BF16PanelWidth panels of a packed B.
func InterleaveBF16Panels(dst []uint32, stride int, lo, hi []float32) {
	const w = BF16PanelWidth
	n := len(lo)
	if n%w != 0 || hi != nil && len(hi) != n || n > 0 && len(dst) < (n/w-1)*stride+w {
		panic("kernels: InterleaveBF16Panels: bad lengths")
	}
	if n == 0 {
		return
	}
	if hi == nil {
		hi = zeroRow[:]
		for c := 0; c < n; c += w {
			interleavePanels(dst[c/w*stride:], stride, lo[c:c+w], hi)
		}
		return
	}
	interleavePanels(dst, stride, lo, hi)
}

// zeroRow is the hi row of a pair row whose odd member is padding.
var zeroRow [BF16PanelWidth]float32

// interleavePanelsGeneric is the pure-Go twin of interleavePanels.
func interleavePanelsGeneric(dst []uint32, stride int, lo, hi []float32) {
	const w = BF16PanelWidth
	for c := 0; c < len(lo); c += w {
		d := dst[c/w*stride:][:w]
		for j := range d {
			d[j] = uint32(bf16RoundFTZ(math.Float32bits(lo[c+j]))) | uint32(bf16RoundFTZ(math.Float32bits(hi[c+j])))<<16
		}
	}
}

// SgemmBF16PackedB computes C = op(A)*B + beta*C (beta 0 or 1; C not
// read when 0) like SgemmBF16 with alpha 1, op(B) (k x n) given packed:
// panel r (columns r*BF16PanelWidth and on) at bp[r*BF16PanelWidth*kp:],
// pair (q, j) at q*BF16PanelWidth+j, kp from BF16PackedKPairs(k), pairs
// past ceil(k/2) zero (columns past n in the last panel may hold
// anything: they reach no output). serial runs it on the calling
// goroutine alone (see SgemmSerial). It panics unless BF16PackedKPairs
// reports ok.
func SgemmBF16PackedB(serial, transA bool, m, n, k int, a []float32, lda int, bp []uint32, beta float32, c []float32, ldc int) {
	kp, ok := BF16PackedKPairs(k)
	if !ok {
		panic("kernels: SgemmBF16PackedB without a hardware bfloat16 kernel")
	}
	if beta != 0 && beta != 1 {
		panic("kernels: SgemmBF16PackedB: beta must be 0 or 1")
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	switch {
	case m < 0 || n < 0 || k < 0:
		panic("kernels: SgemmBF16PackedB: negative dimension")
	case m == 0 || n == 0:
		return
	case lda < max(colsA, 1) || len(a) < (rowsA-1)*lda+colsA:
		panic("kernels: SgemmBF16PackedB: A too short")
	case ldc < max(n, 1) || len(c) < (m-1)*ldc+n:
		panic("kernels: SgemmBF16PackedB: C too short")
	case len(bp) < ceilDiv(n, BF16PanelWidth)*BF16PanelWidth*kp:
		panic("kernels: SgemmBF16PackedB: packed B too short")
	}
	runPacked(serial, &bf16Job{kern: activeBF16, transA: transA, m: m, nc: n, kb: k, alpha: 1, beta: beta, a: a, lda: lda, c: c, ldc: ldc, bp: bp})
}

// runPacked runs job j (validated, B packed by the caller in one k block
// of j.kb, A too when j.ap is set) on up to Threads() goroutines, or on
// the calling one when serial.
func runPacked(serial bool, j *bf16Job) {
	if j.kb == 0 {
		scaleC(j.m, j.nc, j.beta, j.c, j.ldc)
		return
	}
	nt := Threads()
	if serial || 2*float64(j.m)*float64(j.nc)*float64(j.kb) < parallelMinFlops {
		nt = 1
	}
	j.plan(nt)
	j.kcMax, j.packItems = j.kb, 0 // one k block, packed: no packing items
	runParticipants(min(nt, j.items), j.run)
}

// BF16PackedA reports whether SgemmBF16PackedAB runs here: on the AMX
// kernel, which reads op(A) as rows of k-pairs.
func BF16PackedA() bool {
	bf16Init()
	return activeBF16.amx
}

// ConvertBF16Pairs writes src rounded to bfloat16 (to nearest even,
// subnormals flushed, as SgemmBF16's packing) as pairs: dst[q] =
// bf16(src[2q]) | bf16(src[2q+1])<<16, a missing last odd element zero.
func ConvertBF16Pairs(dst []uint32, src []float32) {
	if len(dst) < ceilDiv(len(src), 2) {
		panic("kernels: ConvertBF16Pairs: dst too short")
	}
	cvtPairs(dst, src)
}

// SgemmBF16PackedAB is SgemmBF16PackedB with A (m x k, not transposed)
// given as rows of bfloat16 pairs too: pair (i, q) at ap[i*lda+q]
// (ConvertBF16Pairs of row i), lda >= kp words. Rows are read in tiles
// of 32: ap must hold ceil(m/32)*32 rows (those past m may hold
// anything: they reach no output), and pairs from ceil(k/2) to kp of
// each row must be zero. It panics unless BF16PackedA.
func SgemmBF16PackedAB(serial bool, m, n, k int, ap []uint32, lda int, bp []uint32, beta float32, c []float32, ldc int) {
	kp, ok := BF16PackedKPairs(k)
	switch {
	case !ok || !activeBF16.amx:
		panic("kernels: SgemmBF16PackedAB without the AMX kernel")
	case beta != 0 && beta != 1:
		panic("kernels: SgemmBF16PackedAB: beta must be 0 or 1")
	case m < 0 || n < 0 || k < 0:
		panic("kernels: SgemmBF16PackedAB: negative dimension")
	case m == 0 || n == 0:
		return
	case lda < kp || len(ap) < (ceilDiv(m, activeBF16.mr)*activeBF16.mr-1)*lda+kp:
		panic("kernels: SgemmBF16PackedAB: packed A too short")
	case ldc < max(n, 1) || len(c) < (m-1)*ldc+n:
		panic("kernels: SgemmBF16PackedAB: C too short")
	case len(bp) < ceilDiv(n, BF16PanelWidth)*BF16PanelWidth*kp:
		panic("kernels: SgemmBF16PackedAB: packed B too short")
	}
	runPacked(serial, &bf16Job{kern: activeBF16, m: m, nc: n, kb: k, alpha: 1, beta: beta, c: c, ldc: ldc, bp: bp, ap: ap, apLd: lda})
}

// ConvertBF16Runs is ConvertBF16Pairs of runs runs of run values (even),
// run r from src[r*stride:] to dst[r*run/2:]: the kernel rows of one
// receptive field, made pairs in one call.
func ConvertBF16Runs(dst []uint32, src []float32, runs, run, stride int) {
	if runs <= 0 {
		return
	}
	if run%2 != 0 || len(dst) < runs*run/2 || len(src) < (runs-1)*stride+run {
		panic("kernels: ConvertBF16Runs: bad lengths")
	}
	if useBF16Asm && run%32 == 0 {
		cvtRunsAVX512(&dst[0], &src[0], runs, run, stride)
		return
	}
	for r := 0; r < runs; r++ {
		cvtPairs(dst[r*run/2:], src[r*stride:][:run])
	}
}
