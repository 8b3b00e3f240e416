package kernels

import "math"

// gatherPack, when non-nil, is an assembly routine (see gatherPackAVX512)
// that packs up to gatherLanes strided rows at once; the transposing packs
// use it instead of scalar Go loops.
var (
	gatherPack  func(dst *float32, dstStride int, src *float32, srcStride int, lanes, width, kc int)
	gatherLanes int
)

type gatherImpl struct {
	name  string
	fn    func(dst *float32, dstStride int, src *float32, srcStride int, lanes, width, kc int)
	lanes int
}

// availableGathers lists the gather routines usable on this CPU (for tests).
var availableGathers []gatherImpl

// canGather reports whether gatherPack can handle lanes rows of stride
// stride (its lane offsets are 32-bit).
func canGather(lanes, stride int) bool {
	return gatherPack != nil && lanes <= gatherLanes && stride*gatherLanes < math.MaxInt32
}

// packA packs the mc x kc block of op(A) starting at (i0, p0) into dst as
// ceil(mc/mr) panels of mr rows; panel r holds element (i, p) at
// dst[r*mr*kc + p*mr + i]. Rows past mc are zero-filled.
func packA(transA bool, a []float32, lda, i0, p0, mc, kc, mr int, dst []float32) {
	for ir := 0; ir < mc; ir += mr {
		mrEff := min(mr, mc-ir)
		d := dst[ir*kc : ir*kc+mr*kc]
		if !transA && canGather(mr, lda) {
			_ = a[(i0+ir+mrEff-1)*lda+p0+kc-1]
			gatherPack(&d[0], mr, &a[(i0+ir)*lda+p0], lda, mrEff, mr, kc)
			continue
		}
		if !transA {
			// op(A)(i,p) = a[i*lda+p]: rows are contiguous.
			for i := 0; i < mrEff; i++ {
				row := a[(i0+ir+i)*lda+p0:]
				row = row[:kc]
				for p, v := range row {
					d[p*mr+i] = v
				}
			}
		} else {
			// op(A)(i,p) = a[p*lda+i]: each p gives mrEff contiguous values.
			base := p0*lda + i0 + ir
			for p := 0; p < kc; p++ {
				copy(d[p*mr:p*mr+mrEff], a[base+p*lda:])
			}
		}
		if mrEff < mr {
			for p := 0; p < kc; p++ {
				clear(d[p*mr+mrEff : p*mr+mr])
			}
		}
	}
}

// packB packs the kc x nc block of op(B) starting at (p0, j0) into dst as
// ceil(nc/nr) panels of nr columns; panel r holds element (p, j) at
// dst[r*nr*kc + p*nr + j]. Columns past nc are zero-filled.
func packB(transB bool, b []float32, ldb, p0, j0, kc, nc, nr int, dst []float32) {
	nPanels := ceilDiv(nc, nr)
	dst = dst[:nPanels*nr*kc]
	if !transB {
		// op(B)(p,j) = b[p*ldb+j]: walk B row by row (sequential reads),
		// scattering each row over the panels.
		for p := 0; p < kc; p++ {
			row := b[(p0+p)*ldb+j0:]
			row = row[:nc]
			d := dst[p*nr:]
			for len(row) >= nr {
				copy(d[:nr], row[:nr])
				row = row[nr:]
				d = d[min(nr*kc, len(d)):]
			}
			if len(row) > 0 {
				dd := d[:nr]
				n := copy(dd, row)
				clear(dd[n:])
			}
		}
		return
	}
	// op(B)(p,j) = b[j*ldb+p]: columns of op(B) are contiguous.
	for jr := 0; jr < nc; jr += nr {
		nrEff := min(nr, nc-jr)
		d := dst[jr*kc : jr*kc+nr*kc]
		if canGather(min(nr, gatherLanes), ldb) {
			_ = b[(j0+jr+nrEff-1)*ldb+p0+kc-1]
			for jj := 0; jj < nr; jj += gatherLanes {
				width := min(gatherLanes, nr-jj)
				lanes := min(width, nrEff-jj)
				if lanes <= 0 {
					for p := 0; p < kc; p++ {
						clear(d[p*nr+jj : p*nr+jj+width])
					}
					continue
				}
				gatherPack(&d[jj], nr, &b[(j0+jr+jj)*ldb+p0], ldb, lanes, width, kc)
			}
			continue
		}
		for j := 0; j < nrEff; j++ {
			col := b[(j0+jr+j)*ldb+p0:]
			col = col[:kc]
			for p, v := range col {
				d[p*nr+j] = v
			}
		}
		if nrEff < nr {
			for p := 0; p < kc; p++ {
				clear(d[p*nr+nrEff : p*nr+nr])
			}
		}
	}
}
