package ops

import "fmt"

// Conv2DTransposeAttrs are the settings of a transposed 2-D convolution
// (NHWC input, kernel (kh, kw, filters, in)), keras.ops.conv_transpose.
type Conv2DTransposeAttrs struct {
	Strides   [2]int
	Dilations [2]int
	// Padding is "valid" or "same".
	Padding string
	// OutputPadding adds rows and columns after the output (each below
	// the stride); nil is Keras' output_padding=None.
	OutputPadding []int
}

// ConvTransposeOutputSize returns the output length of a transposed
// convolution along one dimension by Keras' rule (TensorFlow backend):
// outputPadding < 0 stands for None.
func ConvTransposeOutputSize(in, k, stride, dilation int, padding string, outputPadding int) (int, error) {
	if in < 1 || k < 1 || stride < 1 || dilation < 1 {
		return 0, fmt.Errorf("input %d, kernel %d, stride %d and dilation %d must be positive", in, k, stride, dilation)
	}
	if outputPadding >= stride {
		return 0, fmt.Errorf("output_padding %d must be less than the stride %d", outputPadding, stride)
	}
	ek := (k-1)*dilation + 1
	switch padding {
	case "valid":
		op := max(ek, stride) - ek
		if outputPadding >= 0 {
			op = outputPadding
		}
		return (in-1)*stride + ek + op, nil
	case "same":
		if outputPadding < 0 {
			return in * stride, nil
		}
		return (in-1)*stride + ek%2 + outputPadding, nil
	}
	return 0, fmt.Errorf("padding must be \"valid\" or \"same\", got %q", padding)
}

// Conv2DTranspose is the transposed convolution of NHWC x with kernel w of
// shape (kh, kw, filters, in): the gradient of a [Conv2D] of the output
// with respect to its input, as tf.nn.conv_transpose with Keras' output
// shape ([ConvTransposeOutputSize]). The output is (n, oh, ow, filters).
//
// It adds no op kinds of its own: the forward op is a
// Conv2DBackpropInput, its input gradient a [Conv2D] with the same kernel
// and its kernel gradient a Conv2DBackpropFilter, so every executor that
// runs convolutions runs it.
func Conv2DTranspose(x, w Tensor, attrs Conv2DTransposeAttrs) Tensor {
	const op = "Conv2DTranspose"
	tr := sameTrace(op, x, w)
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 4 {
		fail(op, "needs a rank-4 NHWC input, got shape %v", xs)
	}
	if len(ws) != 4 {
		fail(op, "kernel must be rank 4 (kh, kw, filters, in), got %v", ws)
	}
	if ws[3] != xs[3] {
		fail(op, "input %v has %d channels but the kernel %v expects %d", xs, xs[3], ws, ws[3])
	}
	if attrs.Dilations == [2]int{} {
		attrs.Dilations = [2]int{1, 1}
	}
	outPad := [2]int{-1, -1}
	switch len(attrs.OutputPadding) {
	case 0:
	case 2:
		outPad = [2]int{attrs.OutputPadding[0], attrs.OutputPadding[1]}
		if outPad[0] < 0 || outPad[1] < 0 {
			fail(op, "output_padding %v must be non-negative", attrs.OutputPadding)
		}
	default:
		fail(op, "output_padding %v must have 2 values", attrs.OutputPadding)
	}
	var out [2]int
	for d := range 2 {
		n, err := ConvTransposeOutputSize(xs[1+d], ws[d], attrs.Strides[d], attrs.Dilations[d], attrs.Padding, outPad[d])
		if err != nil {
			fail(op, "input %v, kernel %v: %v", xs, ws, err)
		}
		out[d] = n
	}
	ca := Conv2DAttrs{Strides: attrs.Strides, Dilations: attrs.Dilations, Padding: attrs.Padding}
	// g is the geometry of the convolution whose input gradient this is:
	// from the output (n, oh, ow, filters) to x.
	g := newGeom(op, Shape{xs[0], out[0], out[1], ws[2]}, ws[0], ws[1], ca.Strides, ca.Dilations, ca.Padding)
	if g.oh != xs[1] || g.ow != xs[2] {
		fail(op, "input %v and kernel %v with strides %v, padding %q and output_padding %v give an output %dx%d whose convolution is %dx%d, not the input's %dx%d",
			xs, ws, attrs.Strides, attrs.Padding, attrs.OutputPadding, out[0], out[1], g.oh, g.ow, xs[1], xs[2])
	}
	cin := xs[3]
	scratch := traceScratch(tr)
	desc := fmt.Sprintf("%+v%+v transpose", ca, g)
	return tr.apply(&Op{
		name: "Conv2DBackpropInput", out: Shape{g.n, g.h, g.w, g.c}, attrs: desc,
		fwd: func(o []float32, in [][]float32) {
			wv, xv := in[0], in[1]
			if g.identity() {
				sgemm(false, true, g.rows(), g.patch(), cin, 1, xv, cin, wv, cin, 0, o, g.patch())
				return
			}
			dcols := scratch.get(g.rows() * g.patch())
			sgemm(false, true, g.rows(), g.patch(), cin, 1, xv, cin, wv, cin, 0, dcols, g.patch())
			g.col2im(o, dcols)
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			// dx is the convolution of dy with w; dw that convolution's
			// filter gradient, which reuses the im2col panel of dy that
			// the dx op fills.
			st := &convState{g: g, cout: cin}
			dx := conv2DPlain(st, dy, in[0], ca)
			return []Tensor{conv2DBackpropFilter(st, dy, in[1], dx, ws, ca), dx}
		},
		wrt: []bool{true, true},
	}, w, x)
}

// conv2DPlain is [Conv2D] by im2col and one GEMM into st's panel (no tap
// classes), so that conv2DBackpropFilter of st can read the panel.
func conv2DPlain(st *convState, x, w Tensor, attrs Conv2DAttrs) Tensor {
	tr := sameTrace("Conv2D", x, w)
	g, cout := st.g, st.cout
	return tr.apply(&Op{
		name: "Conv2D", out: Shape{g.n, g.oh, g.ow, cout}, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			cols := st.panel(in[0])
			sgemm(false, false, g.rows(), cout, g.patch(), 1, cols, g.patch(), in[1], cout, 0, o, cout)
		},
		wrt: []bool{false, false},
	}, x, w)
}
