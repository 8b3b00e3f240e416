package ops

import (
	"unsafe"

	"github.com/gokeras/gokeras/internal/kernels"
	"github.com/gokeras/gokeras/internal/vec"
)

// The forward pass of a bfloat16 convolution on packed operands (AMX).
//
// By tap classes, each block of images gathered every class's rows into
// float32 (classRows), the kernel converted them into pairs again, and
// each class's GEMM packed its kernel rows anew: on the ResNet seed's
// 8x8x64 layer the AMX tiles were a quarter of the forward's time. Here
// the kernel is packed once per call, and each output position's
// receptive field goes from x straight into a row of bfloat16 pairs
// (kernels.ConvertBF16Pairs: one run of kw*c values per kernel row,
// zeros for the padding), the rows of a block of images multiplied at
// once (kernels.SgemmBF16PackedAB). The input gradients that run as
// forward convolutions (dxConv) take the same path.

// forwardPacked reports whether a convolution of geometry g runs its
// forward pass on packed operands: on the AMX kernel, without dilation,
// with an even kw*c (a kernel row is whole pairs) and a patch of a
// multiple of 32 values (whole 16-pair steps of the kernel), not for a
// 1x1 stride-1 convolution (x is its panel), and where at most
// packedMaxWaste of the taps are padding.
func forwardPacked(g convGeom, gm gemmMode) bool {
	if !gm.bf16 || g.dh != 1 || g.dw != 1 || (g.kw*g.c)%2 != 0 || g.patch()%32 != 0 || g.identity() || g.tapWaste() > packedMaxWaste {
		return false
	}
	return kernels.BF16PackedA()
}

// forwardPackedRows is the output positions of one block of
// forwardPackedRun (its A rows: 576 KiB at a 3x3x64 patch).
const forwardPackedRows = 512

// forwardPackedRun computes y = conv(x, w) (+ the epilogue ep) for
// geometry g and cout outputs on packed operands: w packed once, then
// the batch split over the cores (imageSplit), each block's rows packed
// from x and multiplied, the epilogue run over them while in cache.
// Each output row is one GEMM row over the whole patch, so the results
// do not depend on the block size or the CPU count.
func forwardPackedRun(g convGeom, cout int, y, x, w []float32, arena *scratchArena, ep epilogue) {
	forwardPackedWith(g, cout, y, x, func(bp []uint32, kp int) { packKernelPanels(bp, w, g.patch(), cout, kp) }, arena, ep)
}

// forwardPackedWith is forwardPackedRun with the kernel's panels made by
// pack (kp pair rows).
func forwardPackedWith(g convGeom, cout int, y, x []float32, pack func(bp []uint32, kp int), arena *scratchArena, ep epilogue) {
	const wd = kernels.BF16PanelWidth
	p, per := g.patch(), g.oh*g.ow
	kp, _ := kernels.BF16PackedKPairs(p)
	np := ceilDiv(cout, wd)
	packedB := np * wd * kp
	nb := max(1, ceilDiv(forwardPackedRows, per))
	s := splitImages(g.n, nb)
	rowsMax := ceilDiv(s.nb*per, 32) * 32 // the kernel reads whole 32-row tiles
	perSlot := rowsMax * kp
	buf := arena.get(packedB + s.slots*perSlot)
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf))
	bp := words[:packedB]
	pack(bp, kp)
	s.run(func(slot, b0, b1 int, serial bool) {
		ap := words[packedB+slot*perSlot:][:perSlot]
		r0, r1 := b0*per, b1*per
		g.packPatchRows(ap, x, r0, r1-r0, kp, serial)
		kernels.SgemmBF16PackedAB(serial, r1-r0, cout, p, ap, kp, bp, 0, y[r0*cout:], cout)
		ep.apply(y, r0, r1, serial)
	})
}

// packKernelPanels packs w (k x n, row-major) into the panels of
// kernels.SgemmBF16PackedB: kp pair rows, zero past ceil(k/2), and zero
// columns past n in the last panel.
func packKernelPanels(bp []uint32, w []float32, k, n, kp int) {
	const wd = kernels.BF16PanelWidth
	np := ceilDiv(n, wd)
	stride := wd * kp
	lo, hi := make([]float32, np*wd), make([]float32, np*wd)
	for q := 0; q < kp; q++ {
		clear(lo)
		clear(hi)
		if 2*q < k {
			copy(lo, w[2*q*n:][:n])
		}
		if 2*q+1 < k {
			copy(hi, w[(2*q+1)*n:][:n])
		}
		kernels.InterleaveBF16Panels(bp[q*wd:], stride, lo, hi)
	}
}

// packPatchRows writes the im2col rows of output positions [r0, r0+rows)
// as rows of bfloat16 pairs, kp words apart (kp = patch/2): kernel row
// ky's taps at words [ky*kw*c/2, (ky+1)*kw*c/2), one conversion of a run
// of x where the whole kernel row is inside the input, tap by tap
// otherwise (zeros for the padding). Rows past rows are left as they are.
func (g convGeom) packPatchRows(ap []uint32, x []float32, r0, rows, kp int, serial bool) {
	run := g.kw * g.c
	rowsOn(serial, rows, g.patch(), func(lo, hi int) {
		pos := g.position(r0 + lo)
		for r := lo; r < hi; r, pos = r+1, g.next(pos) {
			row := ap[r*kp:][:kp]
			iy, ix := pos.oy*g.sh-g.pt, pos.ox*g.sw-g.pl
			if iy >= 0 && iy+g.kh <= g.h && ix >= 0 && ix+g.kw <= g.w {
				// the whole window inside: its kernel rows in one call
				kernels.ConvertBF16Runs(row, x[((pos.b*g.h+iy)*g.w+ix)*g.c:], g.kh, run, g.w*g.c)
				continue
			}
			for ky := 0; ky < g.kh; ky++ {
				d := row[ky*run/2:][:run/2]
				src, k0, k1 := g.kernelRowAt(x, pos, ky)
				if k0 == 0 && k1 == g.kw {
					kernels.ConvertBF16Pairs(d, src[:run])
					continue
				}
				clear(d)
				if k1 > k0 {
					// c may be odd: convert the inside taps as one run when
					// it starts on a pair, else element pairs by hand.
					off := k0 * g.c
					if off%2 == 0 {
						kernels.ConvertBF16Pairs(d[off/2:], src[:(k1-k0)*g.c])
					} else {
						packOddRun(d, off, src[:(k1-k0)*g.c])
					}
				}
			}
		}
	})
}

// packOddRun writes the values v at element offset off (odd) of a row
// of pairs d whose other elements are zero.
func packOddRun(d []uint32, off int, v []float32) {
	var two [1]uint32
	var one [1]float32
	for i, f := range v {
		one[0] = f
		kernels.ConvertBF16Pairs(two[:], one[:])
		e := off + i
		if e%2 == 0 {
			d[e/2] |= two[0] & 0xffff
		} else {
			d[e/2] |= two[0] << 16
		}
	}
}

// packFlippedPanels packs the kernel of the forward convolution that
// computes the input gradient of w (taps x c x cout, HWIO) into the
// panels of kernels.SgemmBF16PackedB, straight from w: that kernel's row
// (t, co) and column ci hold w[taps-1-t][ci][co] (flipped in space, its
// channels swapped), so pair row (t, co/2) of panel r holds the pairs
// (w[taps-1-t][ci][co], w[taps-1-t][ci][co+1]), adjacent in w. All of w
// is converted into pairs in one pass, then each tap's block of 32 input
// channels transposed (as 32-bit words, vec.Transpose) into its panel:
// no flipped float32 copy of the kernel. cout is even and c a multiple
// of the panel width; kp = taps*cout/2 (a multiple of 16, forwardPacked).
func packFlippedPanels(bp []uint32, pairs []uint32, w []float32, taps, c, cout, kp int) {
	const wd = kernels.BF16PanelWidth
	half := cout / 2
	kernels.ConvertBF16Pairs(pairs[:taps*c*half], w[:taps*c*cout])
	src := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(pairs))), len(pairs))
	dst := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(bp))), len(bp))
	parallelRows(taps*c/wd, wd*half, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			t, r := i/(c/wd), i%(c/wd) // tap of the flipped kernel, panel
			blk := src[((taps-1-t)*c+r*wd)*half:][:wd*half]
			vec.Transpose(dst[r*wd*kp+t*half*wd:][:half*wd], blk, wd, half, 0, wd)
		}
	})
}
