package ops

import (
	"fmt"
	"math"
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
	return tr.apply(&Op{
		name: "MaxPool2D", out: Shape{g.n, g.oh, g.ow, g.c}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			xs := in[0]
			parallelFor(g.n*g.oh, func(lo, hi int) {
				for bo := lo; bo < hi; bo++ {
					b, oy := bo/g.oh, bo%g.oh
					for ox := 0; ox < g.ow; ox++ {
						base := ((b*g.oh+oy)*g.ow + ox) * g.c
						ov, am := o[base:base+g.c], argmax[base:base+g.c]
						for c := range ov {
							ov[c] = float32(math.Inf(-1))
							am[c] = -1
						}
						for ky := 0; ky < g.kh; ky++ {
							iy := oy*g.sh - g.pt + ky
							if iy < 0 || iy >= g.h {
								continue
							}
							for kx := 0; kx < g.kw; kx++ {
								ix := ox*g.sw - g.pl + kx
								if ix < 0 || ix >= g.w {
									continue
								}
								off := ((b*g.h+iy)*g.w + ix) * g.c
								for c, v := range xs[off : off+g.c] {
									if v > ov[c] || am[c] < 0 {
										ov[c] = v
										am[c] = int32(off + c)
									}
								}
							}
						}
					}
				}
			})
		},
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			return []Tensor{maxPoolGrad(dy, y, x.Shape(), argmax, attrs)}
		},
	}, x)
}

// maxPoolGrad scatters dy to the argmax positions found by the forward
// pass; the forward output y is an input only to order the two.
func maxPoolGrad(dy, y Tensor, xs Shape, argmax []int32, attrs Pool2DAttrs) Tensor {
	tr := sameTrace("MaxPool2DGrad", dy, y)
	img := xs[1] * xs[2] * xs[3]
	per := dy.Shape().Size() / max(xs[0], 1)
	return tr.apply(&Op{
		name: "MaxPool2DGrad", out: xs.Clone(), attrs: fmt.Sprintf("%+v%v", attrs, xs),
		fwd: func(o []float32, in [][]float32) {
			g := in[0]
			// Each image's outputs only reach that image's inputs, so
			// images scatter in parallel without conflicts.
			parallelFor(xs[0], func(lo, hi int) {
				clear(o[lo*img : hi*img])
				for i := lo * per; i < hi*per; i++ {
					o[argmax[i]] += g[i]
				}
			})
		},
		wrt: []bool{false, false},
	}, dy, y)
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
			avgPoolScan(g, func(oi, ii int, inv float32) { o[oi] += in[0][ii] * inv })
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{tr.apply(&Op{
				name: "AvgPool2DGrad", out: xs.Clone(), attrs: fmt.Sprintf("%+v%v", attrs, xs),
				fwd: func(o []float32, in [][]float32) {
					clear(o)
					avgPoolScan(g, func(oi, ii int, inv float32) { o[ii] += in[0][oi] * inv })
				},
				wrt: []bool{false},
			}, dy)}
		},
	}, x)
}

// avgPoolScan calls f(outputIndex, inputIndex, 1/count) for every
// (output, input) pair of every window, serially.
func avgPoolScan(g convGeom, f func(oi, ii int, inv float32)) {
	for b := 0; b < g.n; b++ {
		for oy := 0; oy < g.oh; oy++ {
			y0, y1 := max(oy*g.sh-g.pt, 0), min(oy*g.sh-g.pt+g.kh, g.h)
			for ox := 0; ox < g.ow; ox++ {
				x0, x1 := max(ox*g.sw-g.pl, 0), min(ox*g.sw-g.pl+g.kw, g.w)
				inv := 1 / float32((y1-y0)*(x1-x0))
				base := ((b*g.oh+oy)*g.ow + ox) * g.c
				for iy := y0; iy < y1; iy++ {
					for ix := x0; ix < x1; ix++ {
						off := ((b*g.h+iy)*g.w + ix) * g.c
						for c := 0; c < g.c; c++ {
							f(base+c, off+c, inv)
						}
					}
				}
			}
		}
	}
}
