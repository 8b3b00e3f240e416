package ops

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/internal/par"
	"github.com/gokeras/gokeras/internal/vec"
)

// Pool2DAttrs are the settings of 2-D pooling over NHWC input.
type Pool2DAttrs struct {
	Pool    [2]int
	Strides [2]int
	Padding string // "valid" or "same"
}

func poolGeom(op string, x Tensor, a Pool2DAttrs) convGeom {
	return newGeom(op, x.Shape(), a.Pool[0], a.Pool[1], a.Strides, [2]int{1, 1}, a.Padding)
}

// MaxPool2D takes the maximum over each window. Positions in the padding
// never win. The gradient goes to the first maximal element of each window.
func MaxPool2D(x Tensor, attrs Pool2DAttrs) Tensor {
	tr := sameTrace("MaxPool2D", x)
	g := poolGeom("MaxPool2D", x, attrs)
	// argmax[i] is the input index that output i came from, kept for the
	// backward pass of the same step.
	argmax := make([]int32, g.n*g.oh*g.ow*g.c)
	// ox in [oxLo, oxHi): windows whose taps all lie inside across
	oxLo, oxHi := g.ow, g.ow
	for ox := 0; ox < g.ow; ox++ {
		if ix := ox*g.sw - g.pl; ix >= 0 && ix+g.kw <= g.w {
			oxLo = min(oxLo, ox)
			oxHi = ox + 1
		}
	}
	return tr.apply(&Op{
		name: "MaxPool2D", out: Shape{g.n, g.oh, g.ow, g.c}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			xs := in[0]
			// run computes outputs [ox0, ox0+n) of row (b, oy), whose
			// windows have the same taps [k0, k1) inside the input
			// across: by taps over the whole run.
			run := func(b, oy, ox0, n, k0, k1 int) {
				row := ((b*g.oh+oy)*g.ow + ox0) * g.c
				ov, am := o[row:row+n*g.c], argmax[row:row+n*g.c]
				first := true
				for ky := 0; ky < g.kh; ky++ {
					iy := oy*g.sh - g.pt + ky
					if iy < 0 || iy >= g.h {
						continue
					}
					for kx := k0; kx < k1; kx++ {
						off := ((b*g.h+iy)*g.w + ox0*g.sw - g.pl + kx) * g.c
						if first {
							vec.SetArgPixels(ov, am, xs[off:], off, g.c, n, g.sw*g.c)
							first = false
						} else {
							vec.MaxArgPixels(ov, am, xs[off:], off, g.c, n, g.sw*g.c)
						}
					}
				}
				if first { // no tap inside the input (not possible with TensorFlow's padding rules)
					for i := range ov {
						ov[i] = float32(math.Inf(-1))
						am[i] = int32(b*g.h*g.w*g.c + i%g.c)
					}
				}
			}
			parallelRows(g.n*g.oh, g.ow*g.c*g.kh*g.kw, func(lo, hi int) {
				for bo := lo; bo < hi; bo++ {
					b, oy := bo/g.oh, bo%g.oh
					if oxHi > oxLo {
						run(b, oy, oxLo, oxHi-oxLo, 0, g.kw)
					}
					for ox := 0; ox < g.ow; ox++ {
						if ox == oxLo && oxHi > oxLo {
							ox = oxHi - 1
							continue
						}
						ix := ox*g.sw - g.pl
						run(b, oy, ox, 1, max(0, -ix), max(min(g.kw, g.w-ix), 0))
					}
				}
			})
		},
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			return []Tensor{maxPoolGrad(dy, y, x.Shape(), argmax, attrs)}
		},
	}, x)
}

// maxPoolGradAttrs identify a max pooling gradient: the pooling, the
// input shape, and the forward op's argmax it reads (and whether it masks
// dy by y > 0, see maskedMaxPoolGrad).
type maxPoolGradAttrs struct {
	Pool2DAttrs
	Input  Shape
	Masked bool
	argmax *[]int32
}

// maxPoolGrad scatters dy to the argmax positions found by the forward
// pass; the forward output y is an input only to order the two.
func maxPoolGrad(dy, y Tensor, xs Shape, argmax []int32, attrs Pool2DAttrs) Tensor {
	return maxPoolScatter(dy, y, maxPoolGradAttrs{Pool2DAttrs: attrs, Input: xs.Clone(), argmax: &argmax}, false)
}

// maxPoolScatter is the kernel of maxPoolGrad: o = 0, then
// o[argmax[i]] += dy[i] (only where y[i] > 0 when masked), rounded to
// bfloat16 by blocks of images when round (cast_fused.go).
func maxPoolScatter(dy, y Tensor, a maxPoolGradAttrs, round bool) Tensor {
	tr := sameTrace("MaxPool2DGrad", dy, y)
	xs, argmax := a.Input, *a.argmax
	img := xs[1] * xs[2] * xs[3]
	per := dy.Shape().Size() / max(xs[0], 1)
	var masked []float32 // dy masked by y > 0, scratch of the masked variant
	if a.Masked {
		masked = make([]float32, dy.Shape().Size())
	}
	nb := xs[0] // images per block: all but when rounding
	if round {
		nb = roundRowBlock(img)
	}
	// Windows that do not overlap and lie inside the input (stride at
	// least the pool, no padding before): each input element gets at most
	// one dy, so the gradient is selected tap by tap (vec.ScatterPixels)
	// instead of cleared and scatter-added element by element; the
	// clearing stays where the windows leave elements out.
	pg := newGeom("MaxPool2DGrad", xs, a.Pool[0], a.Pool[1], a.Strides, [2]int{1, 1}, a.Padding)
	selects := pg.sh >= pg.kh && pg.sw >= pg.kw && pg.pt == 0 && pg.pl == 0 &&
		(pg.oh-1)*pg.sh+pg.kh <= pg.h && (pg.ow-1)*pg.sw+pg.kw <= pg.w
	tiles := selects && pg.oh*pg.kh == pg.h && pg.ow*pg.kw == pg.w // every element in a window
	var offs []int
	for ky := 0; ky < pg.kh; ky++ {
		for kx := 0; kx < pg.kw; kx++ {
			offs = append(offs, (ky*pg.w+kx)*pg.c)
		}
	}
	op := &Op{
		name: "MaxPool2DGrad", out: xs.Clone(), attrs: a,
		fwd: func(o []float32, in [][]float32) {
			g := in[0]
			// Each image's outputs only reach that image's inputs, so
			// images scatter in parallel without conflicts.
			parallelRows(xs[0], img, func(lo, hi int) {
				for b0 := lo; b0 < hi; b0 += nb {
					b1 := min(b0+nb, hi)
					if !tiles {
						clear(o[b0*img : b1*img])
					}
					src := g[b0*per : b1*per]
					if a.Masked {
						src = masked[b0*per : b1*per]
						vec.ReluGrad(src, in[1][b0*per:b1*per], g[b0*per:b1*per])
					}
					am := argmax[b0*per : b1*per]
					if selects {
						rowLen := pg.ow * pg.c
						for r := 0; r < (b1-b0)*pg.oh; r++ {
							b, oy := b0+r/pg.oh, r%pg.oh
							win := (b*pg.h + oy*pg.sh) * pg.w * pg.c
							vec.ScatterPixels(o, src[r*rowLen:(r+1)*rowLen], am[r*rowLen:(r+1)*rowLen], win, pg.c, pg.ow, pg.sw*pg.c, offs)
						}
					} else {
						for i, v := range src {
							o[am[i]] += v
						}
					}
					if round {
						roundBFloat16Slice(o[b0*img:b1*img], o[b0*img:b1*img])
					}
				}
			})
		},
		wrt:  []bool{false, false},
		bf16: round,
	}
	if !round {
		op.roundedBF16 = func(in []Tensor) Tensor { return maxPoolScatter(in[0], in[1], a, true) }
	}
	return tr.apply(op, dy, y)
}

// maxPoolOfRelu recognises dz = MaxPool2DGrad(dy, MaxPool2D(r)) for the
// ReLU output r: then ReluGrad(r, dz) is the same scatter with dy masked
// by the pooled values (each pooled value is the r it came from), one pass
// over the small tensor instead of another over r. It returns dy and the
// pooled output.
//
// Under mixed_bfloat16 the pooling reads CastToBFloat16(r) and dz is the
// exact cast (a view) of the scatter: the same fusion holds, the mask
// being the rounded ReLU output > 0, which is TensorFlow's mask on a
// bfloat16 ReLU (and r > 0 but for values below bfloat16's subnormals).
func maxPoolOfRelu(r, dz Tensor) (dy, pooled Tensor, a maxPoolGradAttrs, ok bool) {
	if castBy(dz, "CastToBFloat16Exact") {
		dz = dz.tr.wrap(Children(dz.tr.g, dz.n)[0])
	}
	op, isOp := dz.n.Op().(*Op)
	if !isOp || op.name != "MaxPool2DGrad" || op.bf16 {
		return // (a scatter rounded to bfloat16 is not the masked one)
	}
	if a, ok = op.attrs.(maxPoolGradAttrs); !ok || a.Masked {
		return Tensor{}, Tensor{}, a, false
	}
	ch := Children(dz.tr.g, dz.n)
	pool := ch[1]
	pop, isOp := pool.Op().(*Op)
	if !isOp || pop.name != "MaxPool2D" {
		return Tensor{}, Tensor{}, a, false
	}
	if in := dz.tr.wrap(Children(dz.tr.g, pool)[0]); in.n != r.n && !(castBy(in, "CastToBFloat16") && Children(dz.tr.g, in.n)[0] == r.n) {
		return Tensor{}, Tensor{}, a, false
	}
	return dz.tr.wrap(ch[0]), dz.tr.wrap(pool), a, true
}

// pooledChannelSum sums dy where pooled > 0 over every axis but the last:
// the bias gradient of a ReLU whose output was max-pooled (the scattered
// gradient holds exactly these values).
func pooledChannelSum(dy, pooled Tensor) Tensor {
	tr := sameTrace("PooledChannelSum", dy, pooled)
	s := dy.Shape()
	c := s[len(s)-1]
	rows := s.Size() / c
	// The masked rows go through a buffer of pooledRows rows: a call per
	// row (32 channels in the CNN) cost more than the arithmetic.
	const pooledRows = 64
	parts := newRowParts(rows, c) // fixed parts, in parallel (reduce.go)
	bufs := make([][]float32, sumParts)
	for i := range bufs {
		bufs[i] = make([]float32, pooledRows*c)
	}
	return tr.apply(&Op{
		name: "PooledChannelSum", out: Shape{c}, attrs: fmt.Sprint(s),
		fwd: func(o []float32, in [][]float32) {
			g, pv := in[0][:rows*c], in[1][:rows*c]
			parts.sum(o, func(p int, acc []float64, r0, r1 int) {
				for r := r0; r < r1; r += pooledRows {
					e := min(r+pooledRows, r1)
					masked := bufs[p][:(e-r)*c]
					vec.ReluGrad(masked, pv[r*c:e*c], g[r*c:e*c])
					vec.AccRows(acc, masked)
				}
			})
		},
		wrt: []bool{false, false},
	}, dy, pooled)
}

// AvgPool2D averages each window. With "same" padding the average is over
// the positions inside the input only, as TensorFlow does.
func AvgPool2D(x Tensor, attrs Pool2DAttrs) Tensor {
	tr := sameTrace("AvgPool2D", x)
	g := poolGeom("AvgPool2D", x, attrs)
	xs := x.Shape()
	return tr.apply(&Op{
		name: "AvgPool2D", out: Shape{g.n, g.oh, g.ow, g.c}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			clear(o)
			avgPoolWindows(g, func(ob, ib int, inv float32) { vec.Axpy(o[ob:ob+g.c], in[0][ib:ib+g.c], inv) })
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{tr.apply(&Op{
				name: "AvgPool2DGrad", out: xs.Clone(), attrs: fmt.Sprintf("%+v%v", attrs, xs),
				fwd: func(o []float32, in [][]float32) {
					clear(o)
					avgPoolWindows(g, func(ob, ib int, inv float32) { vec.Axpy(o[ib:ib+g.c], in[0][ob:ob+g.c], inv) })
				},
				wrt: []bool{false},
			}, dy)}
		},
	}, x)
}

// avgPoolWindows calls f(outputBase, inputBase, 1/count) for every
// (output pixel, input pixel) pair of every window; f handles the g.c
// channels at both offsets with one vector operation. Images are split
// over the cores: each writes only its own output (forward) or input
// (gradient) rows, so the calls of different images never overlap.
func avgPoolWindows(g convGeom, f func(ob, ib int, inv float32)) {
	par.Rows(g.n, g.h*g.w*g.c, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			for oy := 0; oy < g.oh; oy++ {
				y0, y1 := max(oy*g.sh-g.pt, 0), min(oy*g.sh-g.pt+g.kh, g.h)
				for ox := 0; ox < g.ow; ox++ {
					x0, x1 := max(ox*g.sw-g.pl, 0), min(ox*g.sw-g.pl+g.kw, g.w)
					inv := 1 / float32((y1-y0)*(x1-x0))
					ob := ((b*g.oh+oy)*g.ow + ox) * g.c
					for iy := y0; iy < y1; iy++ {
						for ix := x0; ix < x1; ix++ {
							f(ob, ((b*g.h+iy)*g.w+ix)*g.c, inv)
						}
					}
				}
			}
		}
	})
}
