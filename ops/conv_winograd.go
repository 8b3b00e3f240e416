package ops

import (
	"fmt"
	"sync"
	"time"

	"github.com/gokeras/gokeras/internal/vec"
)

// Winograd convolutions F(2x2,3x3) and F(4x4,3x3) for 3x3 stride-1
// kernels (issue 19, measured in docs/performance.md; not wired into
// Conv2D). For an output tile of m x m pixels read from an a x a input
// tile (a = m+2):
//
//	Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A
//
// per input and output channel pair, the ⊙ summed over the input
// channels. With every tile's transformed input gathered into a² matrices
// of tiles x cin and the kernel into a² matrices of cin x cout, that sum
// is a² GEMMs (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2015). Each GEMM does 1/m² of the direct convolution's
// multiply-adds per pixel times a²/9: F(2,3) 16/36, F(4,3) 36/144.
//
// The transforms run on whole rows of a block of tiles (tiles x channels
// floats, channels innermost as in NHWC), one vec call per term, so their
// cost is a few streaming passes over the block rather than scalar code.

// winogradKind is one F(m x m, 3 x 3) algorithm: bt is Bᵀ (a x a), g is G
// (a x 3), at is Aᵀ (m x a), all row-major.
type winogradKind struct {
	name      string
	m, a      int
	bt, g, at []float32

	kronOnce sync.Once
	kb, ka   []float32 // Bᵀ⊗Bᵀ (a² x a²) and Aᵀ⊗Aᵀ (m² x a²)
}

// kron returns Bᵀ⊗Bᵀ and Aᵀ⊗Aᵀ: with a tile's a x a pixels as rows i*a+j,
// the 2-D transforms are one matrix product each.
func (f *winogradKind) kron() (kb, ka []float32) {
	f.kronOnce.Do(func() {
		k := func(m []float32, r, c int) []float32 {
			out := make([]float32, r*r*c*c)
			for i := range r {
				for j := range r {
					for u := range c {
						for v := range c {
							out[(i*r+j)*c*c+u*c+v] = m[i*c+u] * m[j*c+v]
						}
					}
				}
			}
			return out
		}
		f.kb, f.ka = k(f.bt, f.a, f.a), k(f.at, f.m, f.a)
	})
	return f.kb, f.ka
}

var (
	winogradF23 = &winogradKind{
		name: "F(2x2,3x3)", m: 2, a: 4,
		bt: []float32{
			1, 0, -1, 0,
			0, 1, 1, 0,
			0, -1, 1, 0,
			0, 1, 0, -1,
		},
		g: []float32{
			1, 0, 0,
			0.5, 0.5, 0.5,
			0.5, -0.5, 0.5,
			0, 0, 1,
		},
		at: []float32{
			1, 1, 1, 0,
			0, 1, -1, -1,
		},
	}
	winogradF43 = &winogradKind{
		name: "F(4x4,3x3)", m: 4, a: 6,
		bt: []float32{
			4, 0, -5, 0, 1, 0,
			0, -4, -4, 1, 1, 0,
			0, 4, -4, -1, 1, 0,
			0, -2, -1, 2, 1, 0,
			0, 2, -1, -2, 1, 0,
			0, 4, 0, -5, 0, 1,
		},
		g: []float32{
			1.0 / 4, 0, 0,
			-1.0 / 6, -1.0 / 6, -1.0 / 6,
			-1.0 / 6, 1.0 / 6, -1.0 / 6,
			1.0 / 24, 1.0 / 12, 1.0 / 6,
			1.0 / 24, -1.0 / 12, 1.0 / 6,
			0, 0, 1,
		},
		at: []float32{
			1, 1, 1, 1, 1, 0,
			0, 1, -1, 2, -2, 0,
			0, 1, 1, 4, 4, 0,
			0, 1, -1, 8, -8, 1,
		},
	}
)

// winogradBlockFloats bounds the floats of one transformed row (tiles of
// a block x channels). Larger blocks give each GEMM more rows per packing
// of its U_ξ, smaller ones keep the block in cache; 16384 was the best of
// 4096-32768 over the seed ResNet's layers (BenchmarkConvWinograd, noisy).
var winogradBlockFloats = 16384

// winogradChunkFloats is the width of the column chunks the transforms
// work on (winogradApply2D): 512 against 256, 1024 and 2048, 3 alternations.
var winogradChunkFloats = 512

// winogradGEMMTransforms makes the input and output transforms one GEMM
// each (by Bᵀ⊗Bᵀ and Aᵀ⊗Aᵀ over the block's rows) instead of one vec pass
// per nonzero term.
var winogradGEMMTransforms = false

// winogradPhases, when not nil, accumulates the time of the gather, the
// input transform, the a² GEMMs, the output transform and the scatter
// (for BenchmarkConvWinogradParts).
var winogradPhases *[5]time.Duration

// winogradScratch holds the buffers of winogradConv3x3 between calls.
type winogradScratch struct {
	u, p, q, t []float32
}

func growF32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// winogradConv3x3 sets y (n x oh x ow x cout, NHWC) to the stride-1
// convolution of x (n x h x wd x cin, NHWC) with the 3x3 kernel w (HWIO:
// 3 x 3 x cin x cout), padding "same" (oh, ow = h, wd) or "valid" (h-2,
// wd-2), by the Winograd algorithm f. The kernel is transformed on every
// call. s may be nil.
func winogradConv3x3(f *winogradKind, s *winogradScratch, y, x, w []float32, n, h, wd, cin, cout int, padding string) {
	if s == nil {
		s = &winogradScratch{}
	}
	s.u = growF32(s.u, f.a*f.a*cin*cout)
	winogradFilter(f, s.u, w, cin, cout, false)
	winogradConvU(f, s, y, x, s.u, false, n, h, wd, cin, cout, padding)
}

// winogradConv3x3Input sets dx (n x h x wd x cin) to the input gradient of
// the stride-1 'same' convolution of x with the 3x3 kernel w (HWIO), given
// dy (n x h x wd x cout): the 'same' convolution of dy with w turned by 180
// degrees and its channels swapped. The turn is the filter transform's
// reading order of the taps, the swap the GEMMs' transB, so w is not
// copied. s may be nil.
func winogradConv3x3Input(f *winogradKind, s *winogradScratch, dx, dy, w []float32, n, h, wd, cin, cout int) {
	if s == nil {
		s = &winogradScratch{}
	}
	s.u = growF32(s.u, f.a*f.a*cin*cout)
	winogradFilter(f, s.u, w, cin, cout, true)
	winogradConvU(f, s, dx, dy, s.u, true, n, h, wd, cout, cin, "same")
}

// winogradFilter sets u, a² matrices of cin x cout (element (ξ, ci, co) at
// u[(ξ*cin+ci)*cout+co]), to G g Gᵀ for every channel pair of the HWIO
// kernel w, whose 9 taps are 9 rows of cin*cout floats; with flip, of the
// kernel turned by 180 degrees (tap i read as tap 8-i).
func winogradFilter(f *winogradKind, u, w []float32, cin, cout int, flip bool) {
	l := cin * cout
	src := make([][]float32, 9)
	for i := range src {
		k := i
		if flip {
			k = 8 - i
		}
		src[i] = w[k*l : (k+1)*l]
	}
	tmp := make([]float32, f.a*3*(min(l, winogradChunkFloats)+16))
	dst := make([][]float32, f.a*f.a)
	for i := range dst {
		dst[i] = u[i*l : (i+1)*l]
	}
	winogradApply2D(f.g, f.a, 3, dst, src, tmp, l)
}

// winogradConvU is winogradConv3x3 with the kernel already transformed
// (u as winogradFilter leaves it; with transU, each U_ξ is stored cout x
// cin and used transposed).
func winogradConvU(f *winogradKind, s *winogradScratch, y, x, u []float32, transU bool, n, h, wd, cin, cout int, padding string) {
	var oh, ow, pad int
	switch padding {
	case "same":
		oh, ow, pad = h, wd, 1
	case "valid":
		oh, ow = h-2, wd-2
	default:
		panic(fmt.Sprintf("ops: winogradConv3x3: padding %q", padding))
	}
	if oh < 1 || ow < 1 {
		panic(fmt.Sprintf("ops: winogradConv3x3: %dx%d input too small for a valid 3x3 kernel", h, wd))
	}
	if len(x) < n*h*wd*cin || len(u) < f.a*f.a*cin*cout || len(y) < n*oh*ow*cout {
		panic("ops: winogradConv3x3: short buffer")
	}
	m, a := f.m, f.a
	ldu := cout
	if transU {
		ldu = cin
	}
	th, tw := (oh+m-1)/m, (ow+m-1)/m
	tiles := n * th * tw
	maxc := max(cin, cout)
	blk := max(1, min(tiles, winogradBlockFloats/maxc))
	// Rows one cache line off a multiple of 4 KiB apart, so that the
	// columns of the a² rows that a transform pass reads together do not
	// all fall in the same L1 set.
	stride := (blk*maxc+1023)&^1023 + 16
	s.p = growF32(s.p, a*a*stride)
	s.q = growF32(s.q, a*a*stride)
	s.t = growF32(s.t, a*a*(min(stride, winogradChunkFloats)+16))
	p, q := s.p, s.q
	rows := func(buf []float32, k, l int) [][]float32 {
		r := make([][]float32, k)
		for i := range r {
			r[i] = buf[i*stride : i*stride+l]
		}
		return r
	}
	var clock time.Time
	phase := func(i int) {
		if winogradPhases != nil {
			now := time.Now()
			if i >= 0 {
				winogradPhases[i] += now.Sub(clock)
			}
			clock = now
		}
	}
	for t0 := 0; t0 < tiles; t0 += blk {
		phase(-1)
		bt := min(blk, tiles-t0)
		li, lo := bt*cin, bt*cout
		// Gather the a x a input tiles: row i*a+j holds pixel (i, j) of
		// every tile of the block, cin floats each, zero outside x.
		for t := range bt {
			img, rest := (t0+t)/(th*tw), (t0+t)%(th*tw)
			y0, x0 := (rest/tw)*m-pad, (rest%tw)*m-pad
			for i := range a {
				iy := y0 + i
				for j := range a {
					ix := x0 + j
					d := p[(i*a+j)*stride+t*cin : (i*a+j)*stride+(t+1)*cin]
					if iy < 0 || iy >= h || ix < 0 || ix >= wd {
						clear(d)
						continue
					}
					copy(d, x[((img*h+iy)*wd+ix)*cin:])
				}
			}
		}
		phase(0)
		if winogradGEMMTransforms {
			kb, ka := f.kron()
			// V = (Bᵀ⊗Bᵀ) D: p -> q.
			sgemm(false, false, a*a, li, a*a, 1, kb, a*a, p, stride, 0, q, stride)
			phase(1)
			// a² GEMMs: M_ξ (bt x cout) = V_ξ (bt x cin) · U_ξ (cin x cout): q -> p.
			for xi := range a * a {
				sgemm(false, transU, bt, cout, cin, 1, q[xi*stride:], cin, u[xi*cin*cout:], ldu, 0, p[xi*stride:], cout)
			}
			phase(2)
			// Y = (Aᵀ⊗Aᵀ) M: p -> q.
			sgemm(false, false, m*m, lo, a*a, 1, ka, a*a, p, stride, 0, q, stride)
		} else {
			// V = Bᵀ d B, row by row of the block: p -> (q) -> p.
			pr := rows(p, a*a, li)
			winogradApply2D(f.bt, a, a, pr, pr, s.t, li)
			phase(1)
			// a² GEMMs: M_ξ (bt x cout) = V_ξ (bt x cin) · U_ξ (cin x cout).
			for xi := range a * a {
				sgemm(false, transU, bt, cout, cin, 1, p[xi*stride:], cin, u[xi*cin*cout:], ldu, 0, q[xi*stride:], cout)
			}
			phase(2)
			// Y = Aᵀ M A, in place: q's first m*m rows.
			winogradApply2D(f.at, m, a, rows(q, m*m, lo), rows(q, a*a, lo), s.t, lo)
		}
		phase(3)
		// Scatter the m x m output tiles, cropping those past the edge.
		for t := range bt {
			img, rest := (t0+t)/(th*tw), (t0+t)%(th*tw)
			y0, x0 := (rest/tw)*m, (rest%tw)*m
			for i := range min(m, oh-y0) {
				for j := range min(m, ow-x0) {
					copy(y[((img*oh+y0+i)*ow+x0+j)*cout:((img*oh+y0+i)*ow+x0+j+1)*cout], q[(i*m+j)*stride+t*cout:])
				}
			}
		}
		phase(4)
	}
}

// winogradApply2D sets the rows dst (r² of them) to M X Mᵀ, X the c x c
// matrix of the rows src, M r x c, every row l floats. It works on
// winogradChunkFloats columns of all rows at a time, so that a chunk's
// rows stay in cache between the passes, with tmp (r*c chunks, 16 floats
// apart) for the
// first stage. dst may alias src: each chunk of src is read whole before
// its dst chunk is written.
func winogradApply2D(mat []float32, r, c int, dst, src [][]float32, tmp []float32, l int) {
	ch := max(1, min(l, winogradChunkFloats))
	d, x, t := make([][]float32, r*r), make([][]float32, c*c), make([][]float32, r*c)
	col, out := make([][]float32, c), make([][]float32, r)
	cv := winogradConstRows(mat, ch)
	for c0 := 0; c0 < l; c0 += ch {
		w := min(ch, l-c0)
		consts := func(pos int) []float32 { return cv[pos][:w] }
		for i := range d {
			d[i] = dst[i][c0 : c0+w]
		}
		for i := range x {
			x[i] = src[i][c0 : c0+w]
		}
		for i := range t {
			t[i] = tmp[i*(w+16) : i*(w+16)+w]
		}
		// First stage, column by column: T[i][j] = Σ_k M[i][k] X[k][j].
		for j := range c {
			for k := range c {
				col[k] = x[k*c+j]
			}
			for i := range r {
				out[i] = t[i*c+j]
			}
			winogradApply1D(mat, r, c, out, col, consts)
		}
		// Second stage, row by row: Y[i][j] = Σ_k M[j][k] T[i][k].
		for i := range r {
			winogradApply1D(mat, r, c, d[i*r:(i+1)*r], t[i*c:(i+1)*c], consts)
		}
	}
}

// winogradConsts holds, for each coefficient of the transform matrices, a
// vector filled with it (the p and q of vec.DualAffine), shared by all
// calls and only ever replaced by a longer one.
var winogradConsts struct {
	sync.Mutex
	m map[float32][]float32
}

// winogradConstRows returns, for each element of mat, a vector of at least
// n copies of it (nil for zeros).
func winogradConstRows(mat []float32, n int) [][]float32 {
	winogradConsts.Lock()
	defer winogradConsts.Unlock()
	if winogradConsts.m == nil {
		winogradConsts.m = map[float32][]float32{}
	}
	out := make([][]float32, len(mat))
	for i, v := range mat {
		if v == 0 {
			continue
		}
		cv := winogradConsts.m[v]
		if len(cv) < n {
			cv = make([]float32, n)
			vec.Fill(cv, v)
			winogradConsts.m[v] = cv
		}
		out[i] = cv
	}
	return out
}

// winogradApply1D sets dst[i] = Σ_k M[i][k] src[k] for i < r, elementwise
// on rows. Zero terms are skipped. A +1 term and up to two others are one
// vec.DualAffine pass (the coefficients as vectors: consts(i*c+k) is
// M[i][k]'s), each further
// pair of terms another; a lone ±1 term is an Add or Sub, a lone other an
// Axpy.
func winogradApply1D(mat []float32, r, c int, dst, src [][]float32, consts func(pos int) []float32) {
	for i := range r {
		row := mat[i*c : (i+1)*c]
		var terms [8]int
		nt, plus := 0, -1
		for k, v := range row {
			if v == 0 {
				continue
			}
			if v == 1 && plus < 0 {
				plus = k
				continue
			}
			terms[nt] = k
			nt++
		}
		d := dst[i]
		ts := terms[:nt]
		switch {
		case plus < 0 && nt == 0:
			clear(d)
			continue
		case plus >= 0 && nt == 0:
			copy(d, src[plus])
			continue
		case plus >= 0 && nt == 1:
			k := ts[0]
			if row[k] == -1 {
				vec.Sub(d, src[plus], src[k])
			} else {
				copy(d, src[plus])
				vec.Axpy(d, src[k], row[k])
			}
			ts = ts[1:]
		case plus >= 0:
			k0, k1 := ts[0], ts[1]
			vec.DualAffine(d, src[k0], consts(i*c+k0), src[k1], consts(i*c+k1), src[plus])
			ts = ts[2:]
		default: // no +1 term
			k := ts[0]
			vec.Scale(d, src[k], row[k])
			ts = ts[1:]
		}
		for len(ts) >= 2 {
			k0, k1 := ts[0], ts[1]
			vec.DualAffine(d, src[k0], consts(i*c+k0), src[k1], consts(i*c+k1), d)
			ts = ts[2:]
		}
		for _, k := range ts {
			switch row[k] {
			case 1:
				vec.Add(d, d, src[k])
			case -1:
				vec.Sub(d, d, src[k])
			default:
				vec.Axpy(d, src[k], row[k])
			}
		}
	}
}
