package ops

import "fmt"

// Conv2DAttrs are the settings of a 2-D convolution (NHWC input, HWIO kernel).
type Conv2DAttrs struct {
	Strides   [2]int
	Dilations [2]int
	// Padding is "valid" or "same" (TensorFlow's rule: output size
	// ceil(in/stride), the extra padding going after).
	Padding string
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
// (ky, kx, c) order, zeros where the window hangs over the padding.
func (g convGeom) im2col(cols, x []float32) {
	p := g.patch()
	parallelFor(g.n*g.oh, func(lo, hi int) {
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
// Images are independent, so it runs in parallel over the batch.
func (g convGeom) col2im(dx, cols []float32) {
	p := g.patch()
	parallelFor(g.n, func(lo, hi int) {
		clear(dx[lo*g.h*g.w*g.c : hi*g.h*g.w*g.c])
		for b := lo; b < hi; b++ {
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					row := cols[((b*g.oh+oy)*g.ow+ox)*p:][:p]
					i := 0
					for ky := 0; ky < g.kh; ky++ {
						iy := oy*g.sh - g.pt + ky*g.dh
						for kx := 0; kx < g.kw; kx++ {
							ix := ox*g.sw - g.pl + kx*g.dw
							if iy >= 0 && iy < g.h && ix >= 0 && ix < g.w {
								dst := dx[((b*g.h+iy)*g.w+ix)*g.c:][:g.c]
								for j, v := range row[i : i+g.c] {
									dst[j] += v
								}
							}
							i += g.c
						}
					}
				}
			}
		}
	})
}

// convState is shared by a convolution and its filter gradient: the
// backward pass reuses the forward pass's im2col panel instead of redoing it.
type convState struct {
	g    convGeom
	cols []float32
}

func (s *convState) panel(x []float32) []float32 {
	if s.g.identity() {
		return x
	}
	if s.cols == nil {
		s.cols = make([]float32, s.g.rows()*s.g.patch())
	}
	s.g.im2col(s.cols, x)
	return s.cols
}

// Conv2D convolves NHWC x with an HWIO kernel w (kh, kw, in, out). It is a
// cross-correlation, as in every deep learning framework.
func Conv2D(x, w Tensor, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("Conv2D", x, w)
	ws := w.Shape()
	if len(ws) != 4 {
		fail("Conv2D", "kernel must be rank 4 (kh, kw, in, out), got %v", ws)
	}
	if attrs.Dilations == [2]int{} {
		attrs.Dilations = [2]int{1, 1}
	}
	g := newGeom("Conv2D", x.Shape(), ws[0], ws[1], attrs.Strides, attrs.Dilations, attrs.Padding)
	if ws[2] != g.c {
		fail("Conv2D", "input %v has %d channels but the kernel %v expects %d", x.Shape(), g.c, ws, ws[2])
	}
	cout := ws[3]
	st := &convState{g: g}
	return tr.apply(&Op{
		name: "Conv2D", out: Shape{g.n, g.oh, g.ow, cout}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			cols := st.panel(in[0])
			sgemm(false, false, g.rows(), cout, g.patch(), 1, cols, g.patch(), in[1], cout, 0, o, cout)
		},
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			return []Tensor{conv2DBackpropInput(st, in[1], dy, attrs), conv2DBackpropFilter(st, in[0], dy, y, ws, attrs)}
		},
	}, x, w)
}

// conv2DBackpropInput is dL/dx = col2im(dy · wᵀ).
func conv2DBackpropInput(st *convState, w, dy Tensor, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("Conv2DBackpropInput", w, dy)
	g := st.g
	cout := w.Shape()[3]
	var dcols []float32
	return tr.apply(&Op{
		name: "Conv2DBackpropInput", out: Shape{g.n, g.h, g.w, g.c}, attrs: fmt.Sprintf("%+v%+v", attrs, g),
		fwd: func(o []float32, in [][]float32) {
			if g.identity() {
				sgemm(false, true, g.rows(), g.patch(), cout, 1, in[1], cout, in[0], cout, 0, o, g.patch())
				return
			}
			if dcols == nil {
				dcols = make([]float32, g.rows()*g.patch())
			}
			sgemm(false, true, g.rows(), g.patch(), cout, 1, in[1], cout, in[0], cout, 0, dcols, g.patch())
			g.col2im(o, dcols)
		},
		wrt: []bool{false, false},
	}, w, dy)
}

// conv2DBackpropFilter is dL/dw = colsᵀ · dy, with cols from the forward
// pass. The forward output y is an input (unused by the kernel) so the
// graph orders this op after the forward op that fills cols.
func conv2DBackpropFilter(st *convState, x, dy, y Tensor, ws Shape, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("Conv2DBackpropFilter", x, dy, y)
	g := st.g
	cout := ws[3]
	return tr.apply(&Op{
		name: "Conv2DBackpropFilter", out: ws.Clone(), attrs: fmt.Sprintf("%+v%+v", attrs, g),
		fwd: func(o []float32, in [][]float32) {
			cols := in[0]
			if !g.identity() {
				cols = st.cols
			}
			sgemm(true, false, g.patch(), cout, g.rows(), 1, cols, g.patch(), in[1], cout, 0, o, cout)
		},
		wrt: []bool{false, false, false},
	}, x, dy, y)
}
