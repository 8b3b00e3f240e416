package ops

import (
	"unsafe"

	"github.com/gokeras/gokeras/internal/kernels"
	"github.com/gokeras/gokeras/internal/vec"
)

// The filter gradient of a bfloat16 convolution on packed panels.
//
// dwᵀ = dyᵀ·cols is a GEMM whose B operand, the im2col panel, is by far
// the larger: rows x kh*kw*c values against rows x cout of dy. Made in
// float32 (classRows, im2colImages) and then packed into the bfloat16
// kernel's pair panels by SgemmBF16, it was written twice and read twice
// per block, and the tap classes each transposed their own rows of dy:
// on the ResNet seed's 8x8x64 layer the AMX tiles were 14% of the
// filter gradient's time, copies, packing and transpositions the rest.
// Here each pair of output positions' receptive fields goes from x
// straight into the panels (kernels.InterleaveBF16Panels: one run of
// kw*c values per kernel row), and dy is transposed into pairs once per
// block; on small maps with many channels the panels are transposed
// instead and dw computed in its own layout (filterDirect). Windows
// hanging over the padding multiply zeros (the tap classes' saving of
// those products is worth less than their copies on these kernels).

// filterPacked reports whether the filter gradient runs on packed panels
// (backpropFilterPacked): on a hardware bfloat16 kernel, without
// dilation, with kernel rows of at least filterPackedMinRun values (the
// pair rows are made a kernel row at a time: a first convolution's runs
// of 3 values, many per pair, cost more than its GEMM saves; the ResNet
// stem's of 21 go, 1.24 -> 1.16 ms at 2 threads), not for a
// 1x1 stride-1 convolution (its panel is x itself), and where at most
// packedMaxWaste of the taps are padding.
func (s *convState) filterPacked() bool {
	g := s.g
	if !s.bf16 || g.dh != 1 || g.dw != 1 || g.kw*g.c < filterPackedMinRun || g.identity() || g.tapWaste() > packedMaxWaste {
		return false
	}
	_, ok := kernels.BF16PackedKPairs(2)
	return ok
}

// packedFilterParts is filterParts for the packed filter gradient, with
// no part shallower than filterPackedRows/2 positions: each part writes,
// transposes and adds a whole dwᵀ, and the 4x4x128 stride-2 layer's
// (128 positions a part in two parts) took 0.59 ms against 0.37 in one.
func packedFilterParts(g convGeom) int {
	return max(1, min(filterParts(g.n, g.rows()), g.rows()/(filterPackedRows/2)))
}

// filterPackedMinRun is the shortest kernel row (kw*c values) of a
// filter gradient on packed panels.
const filterPackedMinRun = 16

// packedMaxWaste is the largest padding fraction of the taps for which a
// convolution's GEMMs run on packed operands (filterPacked,
// forwardPacked): the tap classes skip those products, but on the AMX
// tiles the products cost less than the classes' copies and small GEMMs
// even at 3x3 over 2x2 maps (56%: forward 0.48 -> 0.37 ms, filter
// gradient 0.76 -> 0.73 ms at 2 threads, BenchmarkConvOp; 0.52 since
// filterDirect).
const packedMaxWaste = 0.6

// filterPackedRows is the least depth (output positions) of one block of
// backpropFilterPacked: its GEMM's k, and with kh*kw*c the size of the
// panels (576 KiB for 3x3x64), which stay in a core's L2.
const filterPackedRows = 512

// backpropFilterPacked computes dw (kh, kw, c, cout) for x and dy on
// packed panels (filterPackedRun).
func (s *convState) backpropFilterPacked(dw, x, dy []float32, arena *scratchArena) {
	filterPackedRun(s.g, s.cout, dw, x, dy, arena)
}

// filterPackedRun computes the filter gradient dw of geometry g with cout
// outputs in the parts of the batch of sumFilterParts (fixed by the
// geometry, so the result does not depend on the CPU count), each part
// by blocks of images: pack the block's panels from x, dwᵀ (+)=
// dyᵀ·panels, and at the end transpose dwᵀ into the part's dw.
func filterPackedRun(g convGeom, cout int, dw, x, dy []float32, arena *scratchArena) {
	const w = kernels.BF16PanelWidth
	per, p := g.oh*g.ow, g.patch()
	pPad := ceilDiv(p, w) * w
	nb := max(1, ceilDiv(filterPackedRows, per))
	parts := packedFilterParts(g)
	kpMax, _ := kernels.BF16PackedKPairs(min(nb, ceilDiv(g.n, parts)) * per)
	packed := pPad * kpMax
	temp := 0 // pair rows made in float32 first (packPatchPairs)
	if g.c%w != 0 {
		temp = 2 * pPad
	}
	if filterDirect(g, cout, parts) {
		filterDirectRun(g, cout, dw, x, dy, arena, parts, nb, kpMax, temp)
		return
	}
	sumFilterParts(dw, g.n, parts, packed+cout*p+temp, arena, func(dst, buf []float32, _, _, p0, p1 int, serial bool) {
		bp := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(buf))), packed)
		wt := buf[packed:][:cout*p]
		rowBuf := buf[packed+cout*p:][:temp]
		for b0 := p0; b0 < p1; b0 += nb {
			b1 := min(b0+nb, p1)
			rows := (b1 - b0) * per
			kp, _ := kernels.BF16PackedKPairs(rows)
			g.packPatchPairs(bp[:pPad*kp], x, b0*per, rows, kp, rowBuf)
			beta := float32(1)
			if b0 == p0 {
				beta = 0
			}
			kernels.SgemmBF16PackedB(serial, true, cout, p, rows, dy[b0*per*cout:], cout, bp, beta, wt, p)
		}
		transposeOn(serial, dst, wt, cout, p)
	})
}

// filterDirect reports whether the packed filter gradient computes dw =
// panelsᵀ·dy in dw's own layout (filterDirectRun) rather than dwᵀ =
// dyᵀ·panels and a transposition: on AMX (its A operand is rows of pairs),
// with whole panels of outputs, where the panels it transposes instead
// (patch x rows/2 words in all) are fewer than the dwᵀ values the other
// way transposes (parts x patch x cout): small maps with many channels,
// whose dwᵀ of megabytes left the cache (the 2x2x256 layers).
func filterDirect(g convGeom, cout, parts int) bool {
	return kernels.BF16PackedA() && cout%kernels.BF16PanelWidth == 0 && g.rows()/2 < parts*cout
}

// filterDirectRun is filterPackedRun computing each part's dw directly:
// per block, the panels packed from x are transposed (as 32-bit words,
// vec.Transpose) into rows of pairs (the A operand, patch rows), dy's
// rows paired into panels (B), and dw (+)= A·B.
func filterDirectRun(g convGeom, cout int, dw, x, dy []float32, arena *scratchArena, parts, nb, kpMax, temp int) {
	const w = kernels.BF16PanelWidth
	per, p := g.oh*g.ow, g.patch()
	pPad := ceilDiv(p, w) * w
	packed := pPad * kpMax
	dyPacked := cout * kpMax
	sumFilterParts(dw, g.n, parts, 2*packed+dyPacked+temp, arena, func(dst, buf []float32, _, _, p0, p1 int, serial bool) {
		words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf))
		panels, rowsA := buf[:packed], buf[packed:2*packed]
		bDy := words[2*packed:][:dyPacked]
		rowBuf := buf[2*packed+dyPacked:][:temp]
		for b0 := p0; b0 < p1; b0 += nb {
			b1 := min(b0+nb, p1)
			rows := (b1 - b0) * per
			kp, _ := kernels.BF16PackedKPairs(rows)
			g.packPatchPairs(words[:pPad*kp], x, b0*per, rows, kp, rowBuf)
			for r := 0; r < pPad/w; r++ { // panel r (kp x w words) -> rows r*w.. (w x kp)
				vec.Transpose(rowsA[r*w*kp:][:w*kp], panels[r*w*kp:][:w*kp], kp, w, 0, kp)
			}
			d := dy[b0*per*cout:]
			for q := 0; q < kp; q++ {
				var lo, hi []float32
				if 2*q < rows {
					lo = d[2*q*cout:][:cout]
				} else {
					lo = zeroPanelRow(cout)
				}
				if 2*q+1 < rows {
					hi = d[(2*q+1)*cout:][:cout]
				}
				kernels.InterleaveBF16Panels(bDy[q*w:], w*kp, lo, hi)
			}
			beta := float32(1)
			if b0 == p0 {
				beta = 0
			}
			ap := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(rowsA))), pPad*kp)
			kernels.SgemmBF16PackedAB(serial, p, cout, rows, ap, kp, bDy, beta, dst, cout)
		}
	})
}

// zeroPanelRow returns n zeros (read only), for the padding of a packed
// operand.
func zeroPanelRow(n int) []float32 {
	if len(zeroRowBuf) < n {
		return make([]float32, n)
	}
	return zeroRowBuf[:n]
}

var zeroRowBuf = make([]float32, 1024)

// packPatchPairs writes the im2col rows of output positions [r0,
// r0+rows) as packed bfloat16 panels for kernels.SgemmBF16PackedB: pair
// row q holds positions r0+2q and r0+2q+1 (the last alone, paired with
// zeros, when rows is odd), pair rows from ceil(rows/2) to kp zero. With
// whole panels of channels, a kernel row whose taps all fall inside both
// windows is one run of kw*c values of x per position, others go tap by
// tap, zeros for the padding; else (rowBuf: two rows of the patch
// rounded up to whole panels) both positions' rows are made in float32
// in rowBuf, then interleaved at once.
func (g convGeom) packPatchPairs(bp []uint32, x []float32, r0, rows, kp int, rowBuf []float32) {
	const w = kernels.BF16PanelWidth
	p, run := g.patch(), g.kw*g.c
	pPad := ceilDiv(p, w) * w
	stride := w * kp
	if g.c%w != 0 {
		lo, hi := rowBuf[:pPad], rowBuf[pPad:2*pPad]
		clear(lo[p:]) // the panel padding, never written
		clear(hi[p:])
		pos := g.position(r0)
		for q := 0; q < kp; q++ {
			if 2*q < rows {
				g.patchRow(lo, x, pos)
				pos = g.next(pos)
			} else {
				clear(lo)
			}
			if 2*q+1 < rows {
				g.patchRow(hi, x, pos)
				pos = g.next(pos)
			} else {
				clear(hi)
			}
			kernels.InterleaveBF16Panels(bp[q*w:], stride, lo, hi)
		}
		return
	}
	zero := zeroPanelRow(g.c)
	pLo := g.position(r0)
	for q := 0; q < kp; q++ {
		d := bp[q*w:]
		pHi := g.next(pLo)
		if 2*q >= rows {
			for c := 0; c < p; c += w {
				clear(d[c/w*stride:][:w])
			}
			continue
		}
		hasHi := 2*q+1 < rows
		for ky := 0; ky < g.kh; ky++ {
			col := d[ky*run/w*stride:]
			lo, lo0, lo1 := g.kernelRowAt(x, pLo, ky)
			var hi []float32
			hi0, hi1 := 0, g.kw
			if hasHi {
				hi, hi0, hi1 = g.kernelRowAt(x, pHi, ky)
			}
			if lo0 == 0 && lo1 == g.kw && hi0 == 0 && hi1 == g.kw {
				if hasHi {
					hi = hi[:run]
				}
				kernels.InterleaveBF16Panels(col, stride, lo[:run], hi)
				continue
			}
			for kx := 0; kx < g.kw; kx++ {
				l, h := zero, zero
				if kx >= lo0 && kx < lo1 {
					l = lo[(kx-lo0)*g.c:][:g.c]
				}
				if hasHi && kx >= hi0 && kx < hi1 {
					h = hi[(kx-hi0)*g.c:][:g.c]
				}
				kernels.InterleaveBF16Panels(col[kx*g.c/w*stride:], stride, l, h)
			}
		}
		pLo = g.next(pHi)
	}
}

// patchRow writes the receptive field of output position p into
// dst[:patch], zeros for the padding taps.
func (g convGeom) patchRow(dst, x []float32, p outPos) {
	run := g.kw * g.c
	for ky := 0; ky < g.kh; ky++ {
		d := dst[ky*run : (ky+1)*run]
		src, k0, k1 := g.kernelRowAt(x, p, ky)
		clear(d[:k0*g.c])
		copy(d[k0*g.c:k1*g.c], src)
		clear(d[k1*g.c:])
	}
}

// kernelRow returns the taps [k0, k1) of kernel row ky of output
// position pos that lie inside the input (none when the row is in the
// padding), and x from tap k0's pixel on: tap kx at run[(kx-k0)*c:].
func (g convGeom) kernelRow(x []float32, pos, ky int) (run []float32, k0, k1 int) {
	return g.kernelRowAt(x, g.position(pos), ky)
}

// outPos is an output position: image b, row oy, column ox.
type outPos struct{ b, oy, ox int }

// position returns output position pos (in batch order) as an outPos.
func (g convGeom) position(pos int) outPos {
	per := g.oh * g.ow
	rest := pos % per
	return outPos{pos / per, rest / g.ow, rest % g.ow}
}

// next returns the output position after p.
func (g convGeom) next(p outPos) outPos {
	if p.ox++; p.ox == g.ow {
		p.ox = 0
		if p.oy++; p.oy == g.oh {
			p.oy, p.b = 0, p.b+1
		}
	}
	return p
}

// kernelRowAt is kernelRow at output position p.
func (g convGeom) kernelRowAt(x []float32, p outPos, ky int) (run []float32, k0, k1 int) {
	iy := p.oy*g.sh - g.pt + ky
	if iy < 0 || iy >= g.h {
		return nil, 0, 0
	}
	ix := p.ox*g.sw - g.pl
	k0 = max(0, -ix)
	k1 = max(min(g.kw, g.w-ix), k0)
	return x[((p.b*g.h+iy)*g.w+ix+k0)*g.c:], k0, k1
}
