package ops

import (
	"github.com/gokeras/gokeras/internal/kernels"
	"github.com/gokeras/gokeras/internal/vec"
)

// The input gradient of a stride-1 convolution is itself a convolution:
// dx = conv(dy, w') with w'[ky][kx][co][ci] = w[kh-1-ky][kw-1-kx][ci][co]
// (the kernel flipped in space, its channels swapped), padded by
// kh-1-pt, kw-1-pl. It runs as a forward pass (tap classes by blocks of
// images, forwardBlocked): each output is written once, where dy·wᵀ then
// col2im writes a column matrix kh*kw times the size of dx and adds it
// back, and a tap class of a few rows per image, all of them on 4x4 and
// 2x2 maps, had its GEMMs over the whole batch, not split over the cores.
// On float32 GEMMs (docs/performance.md, "One block per core") the
// seed ResNet's 4x4x128 input gradient went from 4.0 to 2.8-3.1 ms and
// the 8x8x64 one from 4.0-4.5 to 2.9-3.7 ms on one core (loaded machine).

// dxConv is the forward convolution computing a convolution's input
// gradient (newDxConv).
type dxConv struct {
	g     convGeom  // over dy: n x oh x ow x cout, output n x h x w x c
	plan  *convPlan // its tap classes (nil when it runs on packed operands)
	pairs []uint32  // w in bfloat16 pairs (packFlippedPanels; made on use)
	wt    []float32 // w', remade each step (tap classes; made on use)
}

// dxConvMaxKernel bounds the kernels that go this way (floats): the flip
// is a pass over w each step, which the 3x3 kernels over 256 channels
// (590 Ki floats, on 2x2 maps) do not win back (BenchmarkConvOp).
const dxConvMaxKernel = 256 << 10

// newDxConv returns the input gradient of g (cout output channels) as a
// forward convolution on GEMMs of mode gm, or nil where that does not
// apply: strides or dilations other than 1, a kernel over
// dxConvMaxKernel, and, unless the flipped convolution runs on packed
// operands (forwardPacked, which takes any padding: a 'valid'
// convolution's input gradient is a 'full' one over dy; with whole
// panels of input channels, its kernel packed straight from w,
// packFlippedPanels), padding that is not the same on both sides or a
// plan without tap classes.
func newDxConv(g convGeom, cout int, gm gemmMode) *dxConv {
	if g.sh != 1 || g.sw != 1 || g.dh != 1 || g.dw != 1 || g.kh*g.kw*g.c*cout > dxConvMaxKernel {
		return nil
	}
	// Over dy, padded kh-1-pt above (kh-1 less the bottom padding below,
	// as the output size h implies), likewise across: x's size back.
	d := &dxConv{g: convGeom{n: g.n, h: g.oh, w: g.ow, c: cout, kh: g.kh, kw: g.kw, oh: g.h, ow: g.w,
		sh: 1, sw: 1, dh: 1, dw: 1, pt: g.kh - 1 - g.pt, pl: g.kw - 1 - g.pl}}
	if !forwardPacked(d.g, gm) || g.c%kernels.BF16PanelWidth != 0 || cout%2 != 0 {
		if 2*g.pt != g.kh-1 || 2*g.pl != g.kw-1 || g.oh != g.h || g.ow != g.w {
			return nil
		}
		if d.plan = newConvPlan(d.g, g.c); d.plan == nil {
			return nil
		}
		d.plan.gemmMode = gm
	}
	return d
}

// run computes dx from dy and the forward kernel w (kh, kw, c, cout),
// rounded to bfloat16 when round.
func (d *dxConv) run(dx, dy, w []float32, scratch *scratchArena, round bool) {
	g := d.g // input channels cout, output channels c (forward's)
	c, cout := len(w)/(g.kh*g.kw*g.c), g.c
	taps := g.kh * g.kw
	var ep epilogue
	if round {
		ep = roundingEpilogue(c)
	}
	if d.plan == nil { // packed operands (newDxConv checked the channels)
		if d.pairs == nil {
			d.pairs = make([]uint32, taps*c*cout/2)
		}
		forwardPackedWith(g, c, dx, dy, func(bp []uint32, kp int) { packFlippedPanels(bp, d.pairs, w, taps, c, cout, kp) }, scratch, ep)
		return
	}
	if d.wt == nil {
		d.wt = make([]float32, taps*c*cout)
	}
	parallelRows(taps, c*cout, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			// w'[t] (cout x c) is the transpose of w[taps-1-t] (c x cout)
			vec.Transpose(d.wt[t*cout*c:(t+1)*cout*c], w[(taps-1-t)*c*cout:(taps-t)*c*cout], c, cout, 0, c)
		}
	})
	d.plan.forwardBlocked(g, c, dx, dy, d.wt, scratch, ep)
}
