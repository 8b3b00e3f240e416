package ops

import (
	"fmt"

	"github.com/gokeras/gokeras/internal/vec"
)

// Conv2DAttrs are the settings of a 2-D convolution (NHWC input, HWIO kernel).
type Conv2DAttrs struct {
	Strides   [2]int
	Dilations [2]int
	// Padding is "valid" or "same" (TensorFlow's rule: output size
	// ceil(in/stride), the extra padding going after).
	Padding string
	// Precision is the precision of Conv2D's GEMMs (forward, input and
	// filter gradients): "" is float32; PrecisionBFloat16 rounds their
	// operands to bfloat16 and sums in float32 (gemm.go). Conv2D sets it
	// to bfloat16 inside a layer computing in bfloat16.
	Precision string
}

// ConvOutputSize returns the output length and the padding before for one
// spatial dimension, by TensorFlow's rules.
func ConvOutputSize(in, k, stride, dilation int, padding string) (out, padBefore int, err error) {
	ek := (k-1)*dilation + 1
	switch padding {
	case "valid":
		if in < ek {
			return 0, 0, fmt.Errorf("input size %d is smaller than the (dilated) window %d", in, ek)
		}
		return (in-ek)/stride + 1, 0, nil
	case "same":
		out = (in + stride - 1) / stride
		total := max((out-1)*stride+ek-in, 0)
		return out, total / 2, nil
	}
	return 0, 0, fmt.Errorf("padding must be \"valid\" or \"same\", got %q", padding)
}

// convGeom is the geometry of one convolution or pooling window scan.
type convGeom struct {
	n, h, w, c     int // input
	kh, kw         int // window
	oh, ow         int // output
	sh, sw, dh, dw int
	pt, pl         int // padding before (top, left)
}

func newGeom(op string, xs Shape, kh, kw int, strides, dil [2]int, padding string) convGeom {
	if len(xs) != 4 {
		fail(op, "needs a rank-4 NHWC input, got shape %v", xs)
	}
	for _, v := range []int{strides[0], strides[1], dil[0], dil[1], kh, kw} {
		if v < 1 {
			fail(op, "window %dx%d, strides %v and dilations %v must be positive", kh, kw, strides, dil)
		}
	}
	g := convGeom{n: xs[0], h: xs[1], w: xs[2], c: xs[3], kh: kh, kw: kw, sh: strides[0], sw: strides[1], dh: dil[0], dw: dil[1]}
	var err error
	if g.oh, g.pt, err = ConvOutputSize(g.h, kh, g.sh, g.dh, padding); err != nil {
		fail(op, "input %v, window %dx%d: %v", xs, kh, kw, err)
	}
	if g.ow, g.pl, err = ConvOutputSize(g.w, kw, g.sw, g.dw, padding); err != nil {
		fail(op, "input %v, window %dx%d: %v", xs, kh, kw, err)
	}
	return g
}

// patch is the length of one im2col row.
func (g convGeom) patch() int { return g.kh * g.kw * g.c }
func (g convGeom) rows() int  { return g.n * g.oh * g.ow }

// identity reports whether im2col would copy x unchanged (1x1, stride 1).
func (g convGeom) identity() bool {
	return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0
}

// im2col writes one row per output position holding its receptive field in
// (ky, kx, c) order, zeros where the window hangs over the padding. Without
// dilation the taps of one kernel row are adjacent pixels, so each kernel
// row of a window is one contiguous run of up to kw*c floats; the loops go
// over (image, output row, kernel row) and then along the output row with
// fixed strides.
func (g convGeom) im2col(cols, x []float32) {
	if g.dw != 1 {
		g.im2colDilated(cols, x)
		return
	}
	g.im2colImages(cols, x, 0, g.n, false)
}

// im2colImages is im2col (without dilation) for images [b0, b1): their
// rows go to cols from its start.
func (g convGeom) im2colImages(cols, x []float32, b0, b1 int, serial bool) {
	p := g.patch()
	run := g.kw * g.c
	// With short runs in long rows (a large kernel over few channels, as a
	// stem convolution) the block of rows is zeroed first: a sequential
	// clear brings its cache lines in far faster than the scattered runs
	// would, and leaves the padding taps done.
	preclear := run < 32 && p >= 64
	// taps kx in [k0[ox], k1[ox]) fall inside the input
	k0, k1 := make([]int, g.ow), make([]int, g.ow)
	// ox in [oxLo, oxHi): windows whose whole kernel row is inside the
	// input (a contiguous range); with short runs they go by a tight loop
	// (the generic one's slicing and clears were most of a one-channel
	// im2col, the seed CNN's first convolution).
	oxLo, oxHi := g.ow, 0
	for ox := range k0 {
		ix0 := ox*g.sw - g.pl
		k0[ox] = max(0, -ix0)
		k1[ox] = max(min(g.kw, g.w-ix0), k0[ox])
		if k0[ox] == 0 && k1[ox] == g.kw {
			oxLo, oxHi = min(oxLo, ox), max(oxHi, ox+1)
		}
	}
	short := (run <= 16 || run < 32 && preclear) && oxLo < oxHi
	rowsOn(serial, (b1-b0)*g.oh, g.ow*p, func(lo, hi int) {
		for bo := lo; bo < hi; bo++ {
			b, oy := b0+bo/g.oh, bo%g.oh
			out := cols[bo*g.ow*p : (bo+1)*g.ow*p]
			if preclear {
				clear(out)
			}
			for ky := 0; ky < g.kh; ky++ {
				iy := oy*g.sh - g.pt + ky*g.dh
				if iy < 0 || iy >= g.h {
					if !preclear {
						for ox := 0; ox < g.ow; ox++ {
							clear(out[ox*p+ky*run : ox*p+(ky+1)*run])
						}
					}
					continue
				}
				src := x[(b*g.h+iy)*g.w*g.c : (b*g.h+iy+1)*g.w*g.c]
				for ox := 0; ox < g.ow; ox++ {
					if short && ox == oxLo {
						s0, step := (oxLo*g.sw-g.pl)*g.c, g.sw*g.c
						for o := oxLo; o < oxHi; o++ {
							d := out[o*p+ky*run:][:run]
							sv := src[s0:][:run]
							switch {
							case run == 3:
								d[0], d[1], d[2] = sv[0], sv[1], sv[2]
							case run <= 16:
								for i := range d {
									d[i] = sv[i]
								}
							default:
								copy(d, sv)
							}
							s0 += step
						}
						ox = oxHi - 1
						continue
					}
					a, e := k0[ox], k1[ox]
					seg := out[ox*p+ky*run : ox*p+(ky+1)*run]
					if !preclear {
						clear(seg[:a*g.c])
						clear(seg[e*g.c:])
					}
					if e <= a {
						continue
					}
					s0 := (ox*g.sw - g.pl + a) * g.c
					d := seg[a*g.c : e*g.c]
					sv := src[s0 : s0+len(d)]
					if len(d) <= 16 {
						for i := range d {
							d[i] = sv[i]
						}
					} else {
						copy(d, sv)
					}
				}
			}
		}
	})
}

// im2colDilated is im2col for dilated kernels: one copy per tap.
func (g convGeom) im2colDilated(cols, x []float32) {
	p := g.patch()
	parallelRows(g.n*g.oh, g.ow*p, func(lo, hi int) {
		for bo := lo; bo < hi; bo++ {
			b, oy := bo/g.oh, bo%g.oh
			for ox := 0; ox < g.ow; ox++ {
				row := cols[((b*g.oh+oy)*g.ow+ox)*p:][:p]
				i := 0
				for ky := 0; ky < g.kh; ky++ {
					iy := oy*g.sh - g.pt + ky*g.dh
					for kx := 0; kx < g.kw; kx++ {
						ix := ox*g.sw - g.pl + kx*g.dw
						seg := row[i : i+g.c]
						if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
							clear(seg)
						} else {
							copy(seg, x[((b*g.h+iy)*g.w+ix)*g.c:][:g.c])
						}
						i += g.c
					}
				}
			}
		}
	})
}

// col2im adds each row of cols back into the input positions it came from.
// Images are independent, so it runs in parallel over the batch; without
// dilation each kernel row adds one contiguous run of up to kw*c floats.
func (g convGeom) col2im(dx, cols []float32) { g.col2imImages(dx, cols, 0, g.n, false) }

// col2imImages is col2im for images [b0, b1): cols holds their rows (the
// first row is image b0's), and only their part of dx is written.
func (g convGeom) col2imImages(dx, cols []float32, b0, b1 int, serial bool) {
	p := g.patch()
	img := g.h * g.w * g.c
	rowsOn(serial, b1-b0, img*g.kh*g.kw, func(lo, hi int) {
		lo, hi = lo+b0, hi+b0
		clear(dx[lo*img : hi*img])
		for b := lo; b < hi; b++ {
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					row := cols[(((b-b0)*g.oh+oy)*g.ow+ox)*p:][:p]
					ix0 := ox*g.sw - g.pl
					for ky := 0; ky < g.kh; ky++ {
						iy := oy*g.sh - g.pt + ky*g.dh
						if iy < 0 || iy >= g.h {
							continue
						}
						seg := row[ky*g.kw*g.c : (ky+1)*g.kw*g.c]
						dst := dx[(b*g.h+iy)*g.w*g.c : (b*g.h+iy+1)*g.w*g.c]
						if g.dw == 1 {
							k0, k1 := max(0, -ix0), min(g.kw, g.w-ix0)
							if k1 > k0 {
								d := dst[(ix0+k0)*g.c : (ix0+k1)*g.c]
								vec.Add(d, d, seg[k0*g.c:k1*g.c])
							}
							continue
						}
						for kx := 0; kx < g.kw; kx++ {
							ix := ix0 + kx*g.dw
							if ix >= 0 && ix < g.w {
								d := dst[ix*g.c : (ix+1)*g.c]
								vec.Add(d, d, seg[kx*g.c:(kx+1)*g.c])
							}
						}
					}
				}
			}
		}
	})
}

// convState is shared by a convolution and its gradients: on float32
// GEMMs the filter gradient of an im2col convolution reuses the forward
// pass's panel instead of redoing it. Tap classes (conv_taps.go) keep no
// panel in either precision (conv_taps_blocked.go).
type convState struct {
	g    convGeom
	cout int
	plan *convPlan
	cols []float32 // forward panel (im2col on float32 GEMMs)

	gemmMode // precision of the GEMMs (gemm.go)
}

// blocked reports whether the forward pass and the filter gradient run by
// blocks of images without keeping the forward panel (an im2col
// convolution on bfloat16 GEMMs): the panel (rows*patch floats, megabytes)
// would be written to memory and read back twice, the packing of the
// bfloat16 kernels reading it once more, while a block's rows made again
// from x stay in cache. The float32 path keeps the panel.
// Only where the forward GEMM does run on bfloat16 (not for a patch of
// fewer than 32 taps, as a first convolution over one channel).
//
// A float32 convolution whose panel would exceed maxPanelFloats runs
// blocked too: the DCGAN generator's last layer (a 7x7 convolution over
// 128 channels of 64 28x28 images) would keep a 1.26 GB panel per call,
// GBs for a step of a few such calls, against one more im2col in the
// filter gradient.
func (s *convState) blocked() bool {
	if s.plan != nil || s.g.identity() || s.g.dw != 1 {
		return false
	}
	return s.bf16 && bf16Faster(false, s.g.rows(), s.cout, s.g.patch()) || s.g.rows()*s.g.patch() > maxPanelFloats
}

// maxPanelFloats bounds the forward panel a convolution keeps for its
// filter gradient (32 Mi floats, 128 MiB); a variable for the tests.
var maxPanelFloats = 32 << 20

func (s *convState) panel(x []float32) []float32 {
	if s.g.identity() {
		return x
	}
	s.g.im2col(s.panelBuf(), x)
	return s.cols
}

// panelBuf returns the forward panel's memory (rows*patch floats).
func (s *convState) panelBuf() []float32 {
	if s.cols == nil {
		s.cols = make([]float32, s.g.rows()*s.g.patch())
	}
	return s.cols
}

// scratchKey keys a trace's scratch arena (Trace.Attr).
type scratchKey struct{}

// scratchArena is working memory shared by the ops of one trace: they run
// one at a time, so transient buffers (the input gradient's column
// matrix, gathers) need not each have their own.
type scratchArena struct{ buf []float32 }

func traceScratch(tr *Trace) *scratchArena {
	if a, ok := tr.Attr(scratchKey{}).(*scratchArena); ok {
		return a
	}
	a := &scratchArena{}
	tr.SetAttr(scratchKey{}, a)
	return a
}

// get returns n floats of scratch (contents undefined), valid until the
// next get.
func (a *scratchArena) get(n int) []float32 {
	if cap(a.buf) < n {
		a.buf = make([]float32, n)
	}
	return a.buf[:n]
}

// Conv2D convolves NHWC x with an HWIO kernel w (kh, kw, in, out). It is a
// cross-correlation, as in every deep learning framework.
//
// It runs as im2col and one GEMM, or, when a large part of the windows
// hangs over the padding (small feature maps), by tap classes
// (conv_taps.go) so that the padding zeros are not multiplied.
func Conv2D(x, w Tensor, attrs Conv2DAttrs) Tensor {
	return conv2D(x, w, Tensor{}, false, false, attrs)
}

// conv2D is Conv2D, followed, when b is not None, by an epilogue adding
// the bias b and, when relu, applying the ReLU to each block of output
// rows while it is in cache (Conv2DBias, conv_bias.go), then, when round,
// rounding them to bfloat16 (cast_fused.go).
func conv2D(x, w, b Tensor, relu, round bool, attrs Conv2DAttrs) Tensor {
	name := "Conv2D"
	ins := []Tensor{x, w}
	if !b.IsNone() {
		name = "Conv2DBias"
		if relu {
			name = "Conv2DBiasRelu"
		}
		ins = append(ins, b)
	}
	tr := sameTrace(name, ins...)
	ws := w.Shape()
	if len(ws) != 4 {
		fail(name, "kernel must be rank 4 (kh, kw, in, out), got %v", ws)
	}
	if attrs.Dilations == [2]int{} {
		attrs.Dilations = [2]int{1, 1}
	}
	g := newGeom(name, x.Shape(), ws[0], ws[1], attrs.Strides, attrs.Dilations, attrs.Padding)
	if ws[2] != g.c {
		fail(name, "input %v has %d channels but the kernel %v expects %d", x.Shape(), g.c, ws, ws[2])
	}
	cout := ws[3]
	if bs := b.Shape(); !b.IsNone() && (len(bs) != 1 || bs[0] != cout) {
		fail(name, "bias of shape %v does not match the %d output channels", bs, cout)
	}
	if attrs.Precision == "" {
		attrs.Precision = tr.gemmPrecision()
	}
	gm := modeOf(name, attrs.Precision)
	st := &convState{gemmMode: gm, g: g, cout: cout, plan: newConvPlan(g, cout)}
	if st.plan != nil {
		st.plan.gemmMode = gm
	}
	scratch := traceScratch(tr)
	var repBias []float32 // the epilogue's repeated bias (conv_bias.go)
	op := &Op{
		name: name, out: Shape{g.n, g.oh, g.ow, cout}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			var ep epilogue // the bias and ReLU, applied by rows (conv_bias.go)
			if len(in) > 2 {
				ep = newEpilogue(in[2][:cout], relu, &repBias)
				ep.round = round
			}
			if forwardPacked(g, st.gemmMode) {
				if st.plan != nil {
					st.plan.dyFresh = false // as forwardBlocked: a new step's dy
				}
				forwardPackedRun(g, cout, o, in[0], in[1], scratch, ep)
				return
			}
			if pl := st.plan; pl != nil {
				pl.forwardBlocked(g, cout, o, in[0], in[1], scratch, ep)
				return
			}
			p, per := g.patch(), g.oh*g.ow
			if st.blocked() {
				// A few images at a time: their column rows stay in
				// cache between im2col and the GEMM; the filter gradient
				// makes them again (see blocked).
				s := splitImages(g.n, dxImageBlock(per*p))
				buf := scratch.get(s.slots * s.nb * per * p)
				s.run(func(slot, b0, b1 int, serial bool) {
					cols := buf[slot*s.nb*per*p:][:(b1-b0)*per*p]
					g.im2colImages(cols, in[0], b0, b1, serial)
					st.gemm(serial)(false, false, (b1-b0)*per, cout, p, 1, cols, p, in[1], cout, 0, o[b0*per*cout:], cout)
					ep.apply(o, b0*per, b1*per, serial)
				})
				return
			}
			if g.dw != 1 {
				cols := st.panel(in[0])
				st.sgemm(false, false, g.rows(), cout, p, 1, cols, p, in[1], cout, 0, o, cout)
				ep.apply(o, 0, g.rows(), false)
				return
			}
			// The panel is kept for the filter gradient; each core makes
			// and multiplies its images' rows (with an epilogue, a few
			// images at a time, so that their output is still in cache).
			cols := in[0]
			if !g.identity() {
				cols = st.panelBuf()
			}
			step := g.n
			if ep.active() {
				step = max(1, epilogueBlockFloats/(per*cout))
			}
			splitImages(g.n, g.n).run(func(_, p0, p1 int, serial bool) {
				if !g.identity() {
					g.im2colImages(cols[p0*per*p:], in[0], p0, p1, serial)
				}
				for b0 := p0; b0 < p1; b0 += step {
					b1 := min(b0+step, p1)
					st.gemm(serial)(false, false, (b1-b0)*per, cout, p, 1, cols[b0*per*p:], p, in[1], cout, 0, o[b0*per*cout:], cout)
					ep.apply(o, b0*per, b1*per, serial)
				}
			})
		},
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			if len(in) == 2 {
				return []Tensor{conv2DBackpropInput(st, in[1], dy, y, attrs, false), conv2DBackpropFilter(st, in[0], dy, y, ws, attrs)}
			}
			g, db := biasEpilogueGrad(y, castDyIf(round, dy), relu)
			return []Tensor{conv2DBackpropInput(st, in[1], g, y, attrs, false), conv2DBackpropFilter(st, in[0], g, y, ws, attrs), db}
		},
		bf16: round,
	}
	if len(ins) == 3 && !round {
		op.roundedBF16 = func(in []Tensor) Tensor { return conv2D(in[0], in[1], in[2], relu, true, attrs) }
	}
	return tr.apply(op, ins...)
}

// conv2DBackpropInput is dL/dx = col2im(dy · wᵀ). With a tap-class plan it
// reads the rows of dy that the forward pass marked stale and the filter
// gradient may have gathered (gatherDy), so it takes the forward output y
// as an input (unused by the kernel) to run after it. When round, it
// rounds dx to bfloat16 as it finishes each block of images
// (cast_fused.go).
func conv2DBackpropInput(st *convState, w, dy, y Tensor, attrs Conv2DAttrs, round bool) Tensor {
	g := st.g
	cout := w.Shape()[3]
	ins := []Tensor{w, dy}
	if st.plan != nil {
		ins = append(ins, y)
	}
	tr := sameTrace("Conv2DBackpropInput", ins...)
	scratch := traceScratch(tr)
	var dc *dxConv // a tap-class stride-1 convolution's dx as a forward pass (conv_dx_forward.go)
	if st.plan != nil && (!st.bf16 || bf16Faster(false, g.rows(), g.c, g.kh*g.kw*cout)) || st.plan == nil && st.bf16 {
		dc = newDxConv(g, cout, st.gemmMode) // without a plan, only on packed operands
	}
	op := &Op{
		name: "Conv2DBackpropInput", out: Shape{g.n, g.h, g.w, g.c}, attrs: fmt.Sprintf("%+v%+v", attrs, g),
		fwd: func(o []float32, in [][]float32) {
			if dc != nil {
				dc.run(o, in[1], in[0], scratch, round)
				return
			}
			if pl := st.plan; pl != nil {
				pl.backpropInput(g, cout, o, in[1], in[0], scratch, round)
				return
			}
			if g.identity() {
				p, per := g.patch(), g.oh*g.ow
				splitImages(g.n, g.n).run(func(_, b0, b1 int, serial bool) {
					st.gemm(serial)(false, true, (b1-b0)*per, p, cout, 1, in[1][b0*per*cout:], cout, in[0], cout, 0, o[b0*per*p:], p)
					if round {
						roundOn(serial, o[b0*per*p:b1*per*p])
					}
				})
				return
			}
			// A few images at a time: their column rows stay in cache
			// between the GEMM and col2im (see dxImageBlock).
			p, per := g.patch(), g.oh*g.ow
			s := splitImages(g.n, dxImageBlock(per*p))
			buf := scratch.get(s.slots * s.nb * per * p)
			s.run(func(slot, b0, b1 int, serial bool) {
				dcols := buf[slot*s.nb*per*p:][:(b1-b0)*per*p]
				st.gemm(serial)(false, true, (b1-b0)*per, p, cout, 1, in[1][b0*per*cout:], cout, in[0], cout, 0, dcols, p)
				g.col2imImages(o, dcols, b0, b1, serial)
				if round {
					img := g.h * g.w * g.c
					roundOn(serial, o[b0*img:b1*img])
				}
			})
		},
		wrt:  make([]bool, len(ins)),
		bf16: round,
	}
	if !round {
		op.roundedBF16 = func(in []Tensor) Tensor {
			var y Tensor
			if len(in) > 2 {
				y = in[2]
			}
			return conv2DBackpropInput(st, in[0], in[1], y, attrs, true)
		}
	}
	return tr.apply(op, ins...)
}

// dxBlockFloats bounds the column rows that an input gradient computes
// before adding them back (col2im): the whole matrix (rows*patch floats,
// megabytes) would go to memory and come back; on bfloat16 GEMMs that
// traffic was most of the op, and on float32 ones it paid too (the seed
// CNN's second convolution, docs/performance.md).
var dxBlockFloats = 128 << 10

// dxImageBlock returns how many images of perImage column floats each
// make one block (at least one).
func dxImageBlock(perImage int) int { return max(1, dxBlockFloats/max(perImage, 1)) }

// conv2DBackpropFilter is dL/dw = colsᵀ · dy, with cols from the forward
// pass. The forward output y is an input (unused by the kernel) so the
// graph orders this op after the forward op that fills cols.
func conv2DBackpropFilter(st *convState, x, dy, y Tensor, ws Shape, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("Conv2DBackpropFilter", x, dy, y)
	g := st.g
	cout := ws[3]
	scratch := traceScratch(tr)
	return tr.apply(&Op{
		name: "Conv2DBackpropFilter", out: ws.Clone(), attrs: fmt.Sprintf("%+v%+v", attrs, g),
		fwd: func(o []float32, in [][]float32) {
			if st.filterPacked() {
				st.backpropFilterPacked(o, in[0], in[1], scratch)
				return
			}
			if pl := st.plan; pl != nil {
				pl.backpropFilterBlocked(g, cout, o, in[0], in[1], scratch)
				return
			}
			p, per := g.patch(), g.oh*g.ow
			parts := filterParts(g.n, g.rows())
			if st.blocked() {
				// dwᵀ = Σ over image blocks of dyᵀ·cols, the block's
				// column rows made again in cache (as in the forward),
				// then transposed once: in this orientation the bfloat16
				// kernel transposes dy's few columns, not the block.
				nb := dxImageBlock(per * p)
				blockRows := min(nb, ceilDiv(g.n, parts)) * per
				sumFilterParts(o, g.n, parts, blockRows*p+cout*p, scratch, func(dst, buf []float32, _, _, p0, p1 int, serial bool) {
					cols, wt := buf[:blockRows*p], buf[blockRows*p:][:cout*p]
					mm := st.gemm(serial)
					for b0 := p0; b0 < p1; b0 += nb {
						b1 := min(b0+nb, p1)
						g.im2colImages(cols, in[0], b0, b1, serial)
						beta := float32(1)
						if b0 == p0 {
							beta = 0
						}
						mm(true, false, cout, p, (b1-b0)*per, 1, in[1][b0*per*cout:], cout, cols, p, beta, wt, p)
					}
					transposeOn(serial, dst, wt, cout, p)
				})
				return
			}
			cols := in[0]
			if !g.identity() {
				cols = st.cols
			}
			// Each part multiplies its images' rows of the forward panel.
			sumFilterParts(o, g.n, parts, 0, scratch, func(dst, _ []float32, _, _, p0, p1 int, serial bool) {
				st.gemm(serial)(true, false, p, cout, (p1-p0)*per, 1, cols[p0*per*p:], p, in[1][p0*per*cout:], cout, 0, dst, cout)
			})
		},
		wrt: []bool{false, false, false},
	}, x, dy, y)
}
