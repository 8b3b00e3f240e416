package ops

import "fmt"

// DepthwiseConv2D convolves each channel of NHWC x with its own filters:
// w has shape (kh, kw, in, multiplier) and output channel c*multiplier+m is
// input channel c cross-correlated with w[:, :, c, m], as
// tf.nn.depthwise_conv2d. attrs are as for [Conv2D] (zero dilations mean 1).
func DepthwiseConv2D(x, w Tensor, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("DepthwiseConv2D", x, w)
	ws := w.Shape()
	if len(ws) != 4 {
		fail("DepthwiseConv2D", "kernel must be rank 4 (kh, kw, in, multiplier), got %v", ws)
	}
	if attrs.Dilations == [2]int{} {
		attrs.Dilations = [2]int{1, 1}
	}
	g := newGeom("DepthwiseConv2D", x.Shape(), ws[0], ws[1], attrs.Strides, attrs.Dilations, attrs.Padding)
	if ws[2] != g.c {
		fail("DepthwiseConv2D", "input %v has %d channels but the kernel %v expects %d", x.Shape(), g.c, ws, ws[2])
	}
	if ws[3] < 1 {
		fail("DepthwiseConv2D", "kernel %v has a non-positive depth multiplier", ws)
	}
	mult := ws[3]
	xs := x.Shape()
	return tr.apply(&Op{
		name: "DepthwiseConv2D", out: Shape{g.n, g.oh, g.ow, g.c * mult}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			xv, wv := in[0], in[1]
			parallelFor(g.n*g.oh, func(lo, hi int) {
				for bo := lo; bo < hi; bo++ {
					b, oy := bo/g.oh, bo%g.oh
					for ox := 0; ox < g.ow; ox++ {
						ov := o[((b*g.oh+oy)*g.ow+ox)*g.c*mult:][:g.c*mult]
						clear(ov)
						forTaps(g, oy, ox, func(ky, kx, iy, ix int) {
							xr := xv[((b*g.h+iy)*g.w+ix)*g.c:][:g.c]
							wr := wv[(ky*g.kw+kx)*g.c*mult:][:g.c*mult]
							for c, xc := range xr {
								for m := 0; m < mult; m++ {
									ov[c*mult+m] += xc * wr[c*mult+m]
								}
							}
						})
					}
				}
			})
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{depthwiseBackpropInput(g, xs, in[1], dy, attrs), depthwiseBackpropFilter(g, ws, in[0], dy, attrs)}
		},
	}, x, w)
}

// forTaps calls f for each tap (ky, kx) of the window of output (oy, ox)
// that falls inside the input, with the input position (iy, ix) it reads.
func forTaps(g convGeom, oy, ox int, f func(ky, kx, iy, ix int)) {
	for ky := 0; ky < g.kh; ky++ {
		iy := oy*g.sh - g.pt + ky*g.dh
		if iy < 0 || iy >= g.h {
			continue
		}
		for kx := 0; kx < g.kw; kx++ {
			ix := ox*g.sw - g.pl + kx*g.dw
			if ix < 0 || ix >= g.w {
				continue
			}
			f(ky, kx, iy, ix)
		}
	}
}

// depthwiseBackpropInput is dL/dx: each output's gradient flows back to
// the inputs of its window through the kernel taps. Images are independent,
// so it runs in parallel over the batch.
func depthwiseBackpropInput(g convGeom, xs Shape, w, dy Tensor, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("DepthwiseConv2DBackpropInput", w, dy)
	mult := w.Shape()[3]
	return tr.apply(&Op{
		name: "DepthwiseConv2DBackpropInput", out: xs.Clone(), attrs: fmt.Sprintf("%+v%+v", attrs, g),
		fwd: func(o []float32, in [][]float32) {
			wv, gy := in[0], in[1]
			img := g.h * g.w * g.c
			parallelFor(g.n, func(lo, hi int) {
				clear(o[lo*img : hi*img])
				for b := lo; b < hi; b++ {
					for oy := 0; oy < g.oh; oy++ {
						for ox := 0; ox < g.ow; ox++ {
							gr := gy[((b*g.oh+oy)*g.ow+ox)*g.c*mult:][:g.c*mult]
							forTaps(g, oy, ox, func(ky, kx, iy, ix int) {
								dx := o[((b*g.h+iy)*g.w+ix)*g.c:][:g.c]
								wr := wv[(ky*g.kw+kx)*g.c*mult:][:g.c*mult]
								for c := range dx {
									var s float32
									for m := 0; m < mult; m++ {
										s += gr[c*mult+m] * wr[c*mult+m]
									}
									dx[c] += s
								}
							})
						}
					}
				}
			})
		},
		wrt: []bool{false, false},
	}, w, dy)
}

// depthwiseBackpropFilter is dL/dw, summed over the batch and the output
// positions. Each kernel tap owns its slice of the result, so taps run in
// parallel.
func depthwiseBackpropFilter(g convGeom, ws Shape, x, dy Tensor, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("DepthwiseConv2DBackpropFilter", x, dy)
	mult := ws[3]
	return tr.apply(&Op{
		name: "DepthwiseConv2DBackpropFilter", out: ws.Clone(), attrs: fmt.Sprintf("%+v%+v", attrs, g),
		fwd: func(o []float32, in [][]float32) {
			xv, gy := in[0], in[1]
			parallelFor(g.kh*g.kw, func(lo, hi int) {
				for t := lo; t < hi; t++ {
					ky, kx := t/g.kw, t%g.kw
					dw := o[t*g.c*mult:][:g.c*mult]
					clear(dw)
					for b := 0; b < g.n; b++ {
						for oy := 0; oy < g.oh; oy++ {
							iy := oy*g.sh - g.pt + ky*g.dh
							if iy < 0 || iy >= g.h {
								continue
							}
							for ox := 0; ox < g.ow; ox++ {
								ix := ox*g.sw - g.pl + kx*g.dw
								if ix < 0 || ix >= g.w {
									continue
								}
								xr := xv[((b*g.h+iy)*g.w+ix)*g.c:][:g.c]
								gr := gy[((b*g.oh+oy)*g.ow+ox)*g.c*mult:][:g.c*mult]
								for c, xc := range xr {
									for m := 0; m < mult; m++ {
										dw[c*mult+m] += xc * gr[c*mult+m]
									}
								}
							}
						}
					}
				}
			})
		},
		wrt: []bool{false, false},
	}, x, dy)
}
