package ops

import "github.com/gokeras/gokeras/internal/vec"

// Convolution by tap classes: on small feature maps most windows hang over
// the padding (a 3x3 "same" convolution of a 2x2 map reads 4 of its 9 taps
// at each position), and im2col's GEMM multiplies those padding zeros too.
// Grouping the output positions by the set of kernel taps that fall inside
// the input (top row, interior, bottom row times left, interior, right)
// gives a few classes, each a dense problem over its valid taps only: the
// rows of just those taps, the matching rows of the kernel, GEMMs per
// class. The backward passes use the same classes. The rows are gathered
// by blocks of images and not kept (conv_taps_blocked.go).

// tapClass is a set of output positions whose windows see the same
// rectangle of kernel taps [ky0, ky1) x [kx0, kx1) inside the input.
type tapClass struct {
	ky0, ky1, kx0, kx1 int
	rows               []int32 // output positions, (b*oh+oy)*ow+ox, ascending
	k                  int     // row width: taps * channels
	ld                 int     // row stride of its gathered rows (k, padded against cache aliasing)
	// stride > 0: the rows are r0, r0+stride, ... (one position per
	// image), so the class's output rows can be addressed in place.
	r0, stride int
	dyOff      int // first row of the class in the gathered dy
	first      int // index of the class's first row among all classes' rows
}

// convPlan is the tap-class decomposition of a convolution.
type convPlan struct {
	classes []tapClass
	maxRows int // most rows in a class
	maxK    int // widest class row
	// totalRows is the rows of all classes (g.rows() but for positions
	// whose windows lie entirely in the padding).
	totalRows int
	// The rows of dy of the classes that are not evenly spaced, gathered
	// once per replay for both gradients: dygIdx lists their positions.
	dygIdx  []int32
	dygRows int
	dyg     []float32
	dyFresh bool

	gemmMode // precision of the GEMMs (gemm.go), set by Conv2D
}

// tapRange returns the kernel taps [k0, k1) of output position o that fall
// inside an input of length n (stride s, padding before p, no dilation).
func tapRange(o, s, p, k, n int) (int, int) {
	i0 := o*s - p
	k0 := max(0, -i0)
	return k0, max(k0, min(k, n-i0))
}

// tapWaste is the fraction of im2col's taps that are padding. The count
// of valid taps factors into rows times columns (tapSum), which takes
// O(kernel) steps, not O(output size): shape inference builds this op for
// inputs of any declared size.
func (g convGeom) tapWaste() float64 {
	if g.dh != 1 || g.dw != 1 || g.oh <= 0 || g.ow <= 0 {
		return 0
	}
	ys := float64(tapSum(g.oh, g.sh, g.pt, g.kh, g.h)) / (float64(g.oh) * float64(g.kh))
	xs := float64(tapSum(g.ow, g.sw, g.pl, g.kw, g.w)) / (float64(g.ow) * float64(g.kw))
	return 1 - ys*xs
}

// tapSum is the sum over output positions o' < o of the taps of
// tapRange(o', s, p, k, n) (no dilation). Positions [lo, hi) see all k
// taps; only the others, at most about (p+k)/s+2 of them at either end,
// are counted one by one.
func tapSum(o, s, p, k, n int) int {
	lo := min((max(p, 0)+s-1)/s, o) // first position not clipped at the start
	hi := lo
	if n-k+p >= 0 {
		hi = min(max((n-k+p)/s+1, lo), o) // past the last not clipped at the end
	}
	sum := (hi - lo) * k
	for i := 0; i < lo; i++ {
		a, b := tapRange(i, s, p, k, n)
		sum += b - a
	}
	for i := hi; i < o; i++ {
		a, b := tapRange(i, s, p, k, n)
		sum += b - a
	}
	return sum
}

// tapClassMinWaste is the padding fraction above which convolutions run by
// tap classes. Below it the saved multiplications do not pay for the extra
// GEMM calls and the gathers of the smaller problems: in the ResNet seed the
// 3x3 convolutions of 8x8, 4x4 and 2x2 maps (16%, 31% and 56% padding) go
// by classes, the 7x7 stem (10%) by plain im2col, where measurements on
// the 2-core machine showed no gain.
const tapClassMinWaste = 0.12

// noTapClasses turns the tap-class path off (tests compare the two).
var noTapClasses = false

// newConvPlan returns the tap-class plan of g, or nil when plain im2col is
// the better choice.
func newConvPlan(g convGeom, cout int) *convPlan {
	if g.identity() || g.tapWaste() < tapClassMinWaste || noTapClasses {
		return nil
	}
	type rng struct{ a, b int }
	group := func(n, s, p, k, size int) (keys []rng, of []int) {
		of = make([]int, n)
		for o := 0; o < n; o++ {
			a, b := tapRange(o, s, p, k, size)
			idx := -1
			for i, r := range keys {
				if r == (rng{a, b}) {
					idx = i
				}
			}
			if idx < 0 {
				idx = len(keys)
				keys = append(keys, rng{a, b})
			}
			of[o] = idx
		}
		return keys, of
	}
	ys, yOf := group(g.oh, g.sh, g.pt, g.kh, g.h)
	xs, xOf := group(g.ow, g.sw, g.pl, g.kw, g.w)
	pl := &convPlan{}
	for yi, yr := range ys {
		for xi, xr := range xs {
			if yr.a == yr.b || xr.a == xr.b {
				continue // windows entirely in the padding (see below)
			}
			cl := tapClass{ky0: yr.a, ky1: yr.b, kx0: xr.a, kx1: xr.b}
			for b := 0; b < g.n; b++ {
				for oy := 0; oy < g.oh; oy++ {
					if yOf[oy] != yi {
						continue
					}
					for ox := 0; ox < g.ow; ox++ {
						if xOf[ox] == xi {
							cl.rows = append(cl.rows, int32((b*g.oh+oy)*g.ow+ox))
						}
					}
				}
			}
			cl.k = (cl.ky1 - cl.ky0) * (cl.kx1 - cl.kx0) * g.c
			cl.ld = panelStride(cl.k)
			cl.first = pl.totalRows
			pl.totalRows += len(cl.rows)
			if per := len(cl.rows) / g.n; per == 1 && g.n > 1 {
				cl.r0, cl.stride = int(cl.rows[0]), int(cl.rows[1]-cl.rows[0])
			}
			if cl.stride == 0 {
				cl.dyOff = pl.dygRows
				pl.dygRows += len(cl.rows)
				pl.dygIdx = append(pl.dygIdx, cl.rows...)
			}
			pl.maxRows = max(pl.maxRows, len(cl.rows))
			pl.maxK = max(pl.maxK, cl.k)
			pl.classes = append(pl.classes, cl)
		}
	}
	// A position whose window is all padding has output 0 (before bias)
	// and no gradient: it is in no class, so the kernels clear it.
	return pl
}

// panelStride returns the row stride for panel rows of k floats: k, plus
// one cache line when rows a multiple of 1 KiB apart would map a GEMM
// micro-panel's rows onto a few L1 sets (the GEMM then packs A instead of
// reading it in place).
func panelStride(k int) int {
	if k%256 == 0 {
		return k + 16
	}
	return k
}

// uncovered reports whether some output positions are in no class (their
// windows lie entirely in the padding).
func (pl *convPlan) uncovered(g convGeom) bool { return pl.totalRows != g.rows() }

// gatherDy copies the rows of dy of every class whose rows are not evenly
// spaced into pl.dyg, once per replay: the filter and the input gradient
// both read them (the forward pass marks the copy stale).
func (pl *convPlan) gatherDy(dy []float32, cout int) {
	if pl.dyFresh {
		return
	}
	pl.dyFresh = true
	if pl.dyg == nil {
		pl.dyg = make([]float32, pl.dygRows*cout)
	}
	parallelRows(len(pl.dygIdx), cout, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			p := int(pl.dygIdx[r])
			copy(pl.dyg[r*cout:(r+1)*cout], dy[p*cout:(p+1)*cout])
		}
	})
}

// classDy returns the class's rows of dy (m x cout) and their leading
// dimension: in place when evenly spaced, else from the gathered copy.
func (pl *convPlan) classDy(cl *tapClass, dy []float32, cout int) ([]float32, int) {
	if cl.stride > 0 {
		return dy[cl.r0*cout:], cl.stride * cout
	}
	return pl.dyg[cl.dyOff*cout : (cl.dyOff+len(cl.rows))*cout], cout
}

// backpropInput computes dx = Σ_class col2im(dy_class · w_classᵀ), the
// kernel rows read in place (eachKernelRows), each part giving its columns
// of the class's column rows. The batch is split over the cores
// (imageSplit), each adding every class into its images' dx, then
// rounding them to bfloat16 when round.
func (pl *convPlan) backpropInput(g convGeom, cout int, dx, dy, w []float32, arena *scratchArena, round bool) {
	pl.gatherDy(dy, cout)
	s := splitImages(g.n, g.n)
	perSlot := 0
	for i := range pl.classes {
		cl := &pl.classes[i]
		perImg := len(cl.rows) / g.n
		if len(cl.rows) < cl.k {
			perSlot = max(perSlot, 2*s.nb*perImg*cl.k)
			continue
		}
		perSlot = max(perSlot, min(dxImageBlock(perImg*cl.k), s.nb)*perImg*cl.k)
	}
	buf := arena.get(s.slots * perSlot)
	s.run(func(slot, p0, p1 int, serial bool) {
		clear(dx[p0*g.h*g.w*g.c : p1*g.h*g.w*g.c])
		mm := pl.gemm(serial)
		scratch := buf[slot*perSlot:][:perSlot]
		for i := range pl.classes {
			cl := &pl.classes[i]
			d, ldd := pl.classDy(cl, dy, cout)
			perImg := len(cl.rows) / g.n
			if len(cl.rows) < cl.k {
				// Few rows (one or two positions per image): dy_class ·
				// wᵀ would pack the whole kernel block transposed for a
				// handful of row panels. Compute its transpose w ·
				// dy_classᵀ instead (packing only dy's rows) and
				// transpose the small result.
				m := (p1 - p0) * perImg
				dcols, dcolsT := scratch[:m*cl.k], scratch[m*cl.k:2*m*cl.k]
				pl.eachKernelRows(cl, g, cout, w, func(off, k int, wr []float32) {
					mm(false, true, k, m, cout, 1, wr, cout, d[p0*perImg*ldd:], ldd, 0, dcolsT[off*m:], m)
				})
				transposeOn(serial, dcols, dcolsT, cl.k, m)
				pl.scatterDx(g, cl, dx, dcols, p0, p1, serial)
				continue
			}
			// A few images at a time, their rows staying in cache
			// between the GEMM and the scatter (see dxImageBlock).
			nb := dxImageBlock(perImg * cl.k)
			dcols := scratch[:min(nb, p1-p0)*perImg*cl.k]
			for b0 := p0; b0 < p1; b0 += nb {
				b1 := min(b0+nb, p1)
				pl.eachKernelRows(cl, g, cout, w, func(off, k int, wr []float32) {
					mm(false, true, (b1-b0)*perImg, k, cout, 1, d[b0*perImg*ldd:], ldd, wr, cout, 0, dcols[off:], cl.k)
				})
				pl.scatterDx(g, cl, dx, dcols, b0, b1, serial)
			}
		}
		if round {
			roundOn(serial, dx[p0*g.h*g.w*g.c:p1*g.h*g.w*g.c])
		}
	})
}

// scatterDx adds rows [b0*perImg, b1*perImg) of class cl's column matrix,
// held from cols[0], back into dx. Rows of different images never touch
// the same input, so unless serial it runs in parallel over images (rows
// are in image order).
func (pl *convPlan) scatterDx(g convGeom, cl *tapClass, dx, cols []float32, b0, b1 int, serial bool) {
	run := (cl.kx1 - cl.kx0) * g.c
	perImg := len(cl.rows) / g.n
	rowsOn(serial, b1-b0, perImg*cl.k, func(lo, hi int) {
		for r := (b0 + lo) * perImg; r < (b0+hi)*perImg; r++ {
			pos := int(cl.rows[r])
			b, rest := pos/(g.oh*g.ow), pos%(g.oh*g.ow)
			oy, ox := rest/g.ow, rest%g.ow
			src := cols[(r-b0*perImg)*cl.k:][:cl.k]
			ix := ox*g.sw - g.pl + cl.kx0
			for ky := cl.ky0; ky < cl.ky1; ky++ {
				iy := oy*g.sh - g.pt + ky
				dst := dx[((b*g.h+iy)*g.w+ix)*g.c:][:run]
				vec.Add(dst, dst, src[:run])
				src = src[run:]
			}
		}
	})
}

// transposeOn is transpose, on the calling goroutine alone when serial.
func transposeOn(serial bool, dst, src []float32, r, c int) {
	if serial {
		for i := 0; i < r; i += transposeStrip {
			vec.Transpose(dst, src, r, c, i, min(i+transposeStrip, r))
		}
		return
	}
	transpose(dst, src, r, c)
}

// transpose writes the r x c matrix src (row-major) transposed into dst
// (c x r), in parallel over blocks of src's rows.
func transpose(dst, src []float32, r, c int) {
	parallelRows(ceilDiv(r, transposeStrip), transposeStrip*c, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			vec.Transpose(dst, src, r, c, s*transposeStrip, min((s+1)*transposeStrip, r))
		}
	})
}

// transposeStrip is the rows of src one vec.Transpose call takes: it
// writes their columns into every row of dst, 8 at a time, so a strip's
// share of dst (c rows of transposeStrip floats) should stay in L2
// between those passes. Whole, a 256 x 2304 dwᵀ (the 2x2x256 layers'
// filter gradient) took half of that op's time.
const transposeStrip = 32
