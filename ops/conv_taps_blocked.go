package ops

import "github.com/gokeras/gokeras/internal/vec"

// Tap classes by blocks of images: the class panels (rows*k floats,
// megabytes over all classes) would be written to memory by the forward
// pass and read back by its GEMMs (and the packing of the bfloat16
// kernels) and the filter gradient. Here each class's rows of a few
// images (dxBlockFloats) are gathered into cache, multiplied at once, and
// gathered again by the filter gradient; no panel is kept. On float32
// GEMMs too this made the ResNet seed's step faster (docs/performance.md).

// classBlock returns how many images make one block of class cl's rows.
func (pl *convPlan) classBlock(cl *tapClass, n int) (perImg, nb int) {
	perImg = len(cl.rows) / n
	return perImg, dxImageBlock(perImg * cl.ld)
}

// filterBlockRows is the fewest rows of a filter-gradient block: the rows
// are that GEMM's depth, and the bfloat16 kernel only pays from a depth
// of 256 (bf16Faster); deeper blocks spread its transposition of dy.
const filterBlockRows = 512

// filterBlock is classBlock for the filter gradient (at least
// filterBlockRows rows).
func (pl *convPlan) filterBlock(cl *tapClass, n int) (perImg, nb int) {
	perImg, nb = pl.classBlock(cl, n)
	return perImg, max(nb, ceilDiv(filterBlockRows, max(perImg, 1)))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// classRows gathers rows [r0, r1) of class cl into dst, row stride
// cl.ld: per row, for each valid ky, one contiguous run of (kx1-kx0)*c
// input floats (no padding inside a class). serial: the caller already
// runs in parallel (imageSplit).
func (pl *convPlan) classRows(g convGeom, cl *tapClass, dst, x []float32, r0, r1 int, serial bool) {
	run := (cl.kx1 - cl.kx0) * g.c
	rowsOn(serial, r1-r0, cl.k, func(lo, hi int) {
		for i := r0 + lo; i < r0+hi; i++ {
			pos := int(cl.rows[i])
			b, rest := pos/(g.oh*g.ow), pos%(g.oh*g.ow)
			oy, ox := rest/g.ow, rest%g.ow
			d := dst[(i-r0)*cl.ld:][:cl.k]
			ix := ox*g.sw - g.pl + cl.kx0
			for ky := cl.ky0; ky < cl.ky1; ky++ {
				iy := oy*g.sh - g.pt + ky
				copy(d[:run], x[((b*g.h+iy)*g.w+ix)*g.c:][:run])
				d = d[run:]
			}
		}
	})
}

// rowsOn is parallelRows, or the plain loop when serial (inside a block
// that already runs in parallel with others).
func rowsOn(serial bool, rows, rowLen int, body func(lo, hi int)) {
	if serial {
		body(0, rows)
		return
	}
	parallelRows(rows, rowLen, body)
}

// eachKernelRows calls f with the class's kernel rows as slices of the
// HWIO kernel w (a (kh*kw*c) x cout matrix): once, k = cl.k, when they
// are contiguous (the full kx range), else once per kernel row ky with
// its taps, off being their first column in the class's rows. The GEMMs
// take them so, one GEMM per part, instead of a gathered copy of the
// kernel (the bfloat16 packing makes one anyway).
func (pl *convPlan) eachKernelRows(cl *tapClass, g convGeom, cout int, w []float32, f func(off, k int, wr []float32)) {
	if cl.kx1-cl.kx0 == g.kw {
		f(0, cl.k, w[cl.ky0*g.kw*g.c*cout:cl.ky1*g.kw*g.c*cout])
		return
	}
	run := (cl.kx1 - cl.kx0) * g.c
	for ky := cl.ky0; ky < cl.ky1; ky++ {
		f((ky-cl.ky0)*run, run, w[((ky*g.kw+cl.kx0)*g.c)*cout:][:run*cout])
	}
}

// blockedScratch is the scratch of one block's worth of forwardImages and
// filterPart (floats): a block of a class's rows and its outputs, and two
// cout x maxK matrices (the filter gradient's transposed partial sums).
// A block has at most images images.
func (pl *convPlan) blockedScratch(g convGeom, cout, images int) int {
	most := 0
	for i := range pl.classes {
		cl := &pl.classes[i]
		per, nb := pl.filterBlock(cl, g.n) // (at least classBlock's)
		most = max(most, min(nb, images)*per*(cl.ld+cout))
	}
	return most + 2*cout*pl.maxK
}

// forwardBlocked computes y = conv(x, w) by classes, gathering each
// class's rows by blocks of images from x (no panel), and reading the
// kernel rows in place (eachKernelRows). The batch is split over the
// cores (imageSplit), each running every class over its images, then the
// epilogue ep (if any) over them.
func (pl *convPlan) forwardBlocked(g convGeom, cout int, y, x, w []float32, arena *scratchArena, ep epilogue) {
	pl.dyFresh = false
	s := splitImages(g.n, g.n)
	per := pl.blockedScratch(g, cout, s.nb)
	buf := arena.get(s.slots * per)
	s.run(func(slot, p0, p1 int, serial bool) {
		pl.forwardImages(g, cout, y, x, w, buf[slot*per:][:per], p0, p1, serial)
		// the part's rows, written by its classes, are in this core's cache
		ep.apply(y, p0*g.oh*g.ow, p1*g.oh*g.ow, serial)
	})
}

// forwardImages is forwardBlocked for images [p0, p1).
func (pl *convPlan) forwardImages(g convGeom, cout int, y, x, w, scratch []float32, p0, p1 int, serial bool) {
	if pl.uncovered(g) {
		clear(y[p0*g.oh*g.ow*cout : p1*g.oh*g.ow*cout])
	}
	mm := pl.gemm(serial)
	for i := range pl.classes {
		cl := &pl.classes[i]
		// c += rows · kernel rows, over the parts of the kernel rows
		gemm := func(m int, a, c []float32, ldc int) {
			beta := float32(0)
			pl.eachKernelRows(cl, g, cout, w, func(off, k int, wr []float32) {
				mm(false, false, m, cout, k, 1, a[off:], cl.ld, wr, cout, beta, c, ldc)
				beta = 1
			})
		}
		per, nb := pl.classBlock(cl, g.n)
		rows := min(nb, p1-p0) * per
		a := scratch[:rows*cl.ld]
		tmp := scratch[rows*cl.ld:][:rows*cout]
		for b0 := p0; b0 < p1; b0 += nb {
			r0, r1 := b0*per, min(b0+nb, p1)*per
			pl.classRows(g, cl, a, x, r0, r1, serial)
			m := r1 - r0
			if cl.stride > 0 {
				gemm(m, a, y[(cl.r0+r0*cl.stride)*cout:], cl.stride*cout)
				continue
			}
			gemm(m, a, tmp, cout)
			rowsOn(serial, m, cout, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					p := int(cl.rows[r0+r])
					copy(y[p*cout:(p+1)*cout], tmp[r*cout:(r+1)*cout])
				}
			})
		}
	}
}

// backpropFilterBlocked computes dw = Σ_class rowsᵀ · dy_class, the class
// rows gathered again from x by blocks of images, in parts of the batch
// (sumFilterParts; by the widest class's rows). A class too shallow to
// split (wholeClass) goes whole to one part, round-robin.
func (pl *convPlan) backpropFilterBlocked(g convGeom, cout int, dw, x, dy []float32, arena *scratchArena) {
	pl.gatherDy(dy, cout)
	most := 0
	for i := range pl.classes {
		most = max(most, len(pl.classes[i].rows))
	}
	parts := filterParts(g.n, most)
	sumFilterParts(dw, g.n, parts, pl.blockedScratch(g, cout, g.n), arena, func(dst, scratch []float32, part, parts, p0, p1 int, serial bool) {
		pl.filterPart(g, cout, dst, x, dy, scratch, part, parts, p0, p1, serial)
	})
}

// wholeClass reports whether class cl's filter gradient is computed over
// the whole batch by one of parts parts instead of split over them: when
// a part's share would be under filterBlockRows/2 rows. Split, a small
// class made GEMMs too shallow for their fixed costs (bfloat16: the
// transposition of dy into pairs, a transposition of the result per
// part), and its filter gradient on one core took 1.35x the time of one
// pass (docs/performance.md, "One block per core").
func wholeClass(cl *tapClass, parts int) bool {
	return parts > 1 && len(cl.rows)/parts < filterBlockRows/2
}

// filterPart writes into dw the filter gradient of part part of parts:
// of images [p0, p1) for the classes split over the parts, of the whole
// batch for its share of the others (wholeClass); per class, where the blocks are deep enough for the bfloat16 kernel, dwᵀ =
// Σ over blocks of dyᵀ·rows (in this orientation it transposes dy's few
// columns, not the rows), added transposed into the class's kernel rows
// of dw; else (float32 GEMMs, or few rows) dw += rowsᵀ·dy block by block
// into the class's kernel rows. gatherDy has run.
func (pl *convPlan) filterPart(g convGeom, cout int, dw, x, dy, scratch []float32, part, parts, p0, p1 int, serial bool) {
	clear(dw)
	mm := pl.gemm(serial)
	run := func(cl *tapClass) int { return (cl.kx1 - cl.kx0) * g.c }
	whole := 0 // classes given whole to a part so far
	for i := range pl.classes {
		cl := &pl.classes[i]
		p0, p1 := p0, p1
		if wholeClass(cl, parts) {
			whole++
			if (whole-1)%parts != part {
				continue
			}
			p0, p1 = 0, g.n
		}
		d, ldd := pl.classDy(cl, dy, cout)
		per, nb := pl.filterBlock(cl, g.n)
		rows := min(nb, p1-p0) * per
		a := scratch[:rows*cl.ld]
		if !pl.bf16 || !bf16Faster(true, cout, cl.k, min(nb, g.n)*per) {
			for b0 := p0; b0 < p1; b0 += nb {
				r0, r1 := b0*per, min(b0+nb, p1)*per
				pl.classRows(g, cl, a, x, r0, r1, serial)
				if cl.kx1-cl.kx0 == g.kw {
					mm(true, false, cl.k, cout, r1-r0, 1, a, cl.ld, d[r0*ldd:], ldd, 1, dw[cl.ky0*g.kw*g.c*cout:], cout)
					continue
				}
				for ky := cl.ky0; ky < cl.ky1; ky++ {
					mm(true, false, run(cl), cout, r1-r0, 1, a[(ky-cl.ky0)*run(cl):], cl.ld, d[r0*ldd:], ldd, 1, dw[((ky*g.kw+cl.kx0)*g.c)*cout:], cout)
				}
			}
			continue
		}
		wt := scratch[len(scratch)-2*cout*pl.maxK:][:cout*cl.k]
		w := scratch[len(scratch)-cout*pl.maxK:][:cl.k*cout]
		for b0 := p0; b0 < p1; b0 += nb {
			r0, r1 := b0*per, min(b0+nb, p1)*per
			pl.classRows(g, cl, a, x, r0, r1, serial)
			beta := float32(1)
			if b0 == p0 {
				beta = 0
			}
			mm(true, false, cout, cl.k, r1-r0, 1, d[r0*ldd:], ldd, a, cl.ld, beta, wt, cl.k)
		}
		transposeOn(serial, w, wt, cout, cl.k) // the class's kernel rows, cl.k x cout
		n := run(cl) * cout
		for ky := cl.ky0; ky < cl.ky1; ky++ {
			// kernel row ky's taps: contiguous in dw, rows of w
			dst := dw[((ky*g.kw+cl.kx0)*g.c)*cout:][:n]
			vec.Add(dst, dst, w[(ky-cl.ky0)*n:][:n])
		}
	}
}
