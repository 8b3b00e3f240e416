package onnx

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

func init() {
	converters["Conv2D"] = convertConv2D
	converters["DepthwiseConv2D"] = convertDepthwiseConv2D
	converters["SeparableConv2D"] = convertSeparableConv2D
	converters["Conv2DTranspose"] = convertConv2DTranspose
}

// window is the geometry of a 1-, 2- or 3-D convolution or pooling from
// its config: kernel, strides, dilations and the padding mode.
type window struct {
	kernel, strides, dilations []int
	padding                    string
}

func readWindow(cfg map[string]any, kernelKey string) (window, error) {
	return readWindowN(cfg, kernelKey, 2, false)
}

// readWindowN reads the window of an n-D layer; causal says whether
// padding "causal" is one of its modes (Conv1D's).
func readWindowN(cfg map[string]any, kernelKey string, n int, causal bool) (window, error) {
	var w window
	var err error
	if w.kernel, err = cfgInts(cfg, kernelKey, n, nil); err != nil {
		return w, err
	}
	if w.kernel == nil {
		return w, fmt.Errorf("config has no %s", kernelKey)
	}
	// Pooling's strides default to its pool size (Keras' strides=None).
	if w.strides, err = cfgInts(cfg, "strides", n, w.kernel); err != nil {
		return w, err
	}
	ones := make([]int, n)
	for i := range ones {
		ones[i] = 1
	}
	if w.dilations, err = cfgInts(cfg, "dilation_rate", n, ones); err != nil {
		return w, err
	}
	if w.padding, err = cfgString(cfg, "padding", "valid"); err != nil {
		return w, err
	}
	df, err := cfgString(cfg, "data_format", "channels_last")
	if err != nil {
		return w, err
	}
	if df != "channels_last" {
		return w, unsupported("data_format %q (gokeras layers are channels_last)", df)
	}
	for i := range n {
		if w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 {
			return w, fmt.Errorf("kernel %v, strides %v and dilation_rate %v must be positive", w.kernel, w.strides, w.dilations)
		}
	}
	if w.padding != "valid" && w.padding != "same" && !(causal && w.padding == "causal") {
		return w, unsupported("padding %q", w.padding)
	}
	return w, nil
}

// attrs are the ONNX attributes of the window over a channels-last input
// of Keras shape s: explicit pads for "same" (TensorFlow's: the odd pixel
// after), or auto_pad SAME_UPPER when a spatial size is unknown; "causal"
// pads the dilated kernel's reach less one before the steps only.
func (w window) attrs(s ops.Shape, dilations bool) []attr {
	n := len(w.kernel)
	as := []attr{attrInts("kernel_shape", w.kernel...), attrInts("strides", w.strides...)}
	if dilations {
		as = append(as, attrInts("dilations", w.dilations...))
	}
	pads := make([]int, 2*n)
	switch w.padding {
	case "same":
		for d := range n {
			if s[1+d] < 0 {
				return append(as, attrString("auto_pad", "SAME_UPPER"))
			}
		}
		for d := range n {
			out := (s[1+d] + w.strides[d] - 1) / w.strides[d]
			total := max((out-1)*w.strides[d]+(w.kernel[d]-1)*w.dilations[d]+1-s[1+d], 0)
			pads[d], pads[n+d] = total/2, total-total/2
		}
	case "causal":
		pads[0] = (w.kernel[0] - 1) * w.dilations[0]
	}
	return append(as, attrInts("pads", pads...))
}

// convCommon reads what every convolution has: window, bias flag, activation.
func convCommon(k *call) (window, bool, string, error) {
	w, err := readWindow(k.cfg, "kernel_size")
	if err != nil {
		return w, false, "", err
	}
	useBias, err := cfgBool(k.cfg, "use_bias", true)
	if err != nil {
		return w, false, "", err
	}
	act, err := cfgActivation(k.cfg, "activation")
	return w, useBias, act, err
}

// hwioToOIHW reorders a Keras kernel (kh, kw, in, out) into ONNX's
// (out, in, kh, kw).
func hwioToOIHW(k []float32, kh, kw, in, out int) []float32 {
	return spatialLast(k, kh*kw, in, out)
}

// spatialLast reorders a Keras kernel of any rank, (spatial..., in, out)
// with s spatial positions, into ONNX's (out, in, spatial...).
func spatialLast(k []float32, s, in, out int) []float32 {
	w := make([]float32, len(k))
	for p := range s {
		for i := range in {
			for o := range out {
				w[(o*in+i)*s+p] = k[(p*in+i)*out+o]
			}
		}
	}
	return w
}

func (c *converter) bias(k *call, useBias bool, n int) (string, error) {
	if !useBias {
		return "", nil
	}
	b, err := mustWeight(k.layer, "bias", n)
	if err != nil {
		return "", err
	}
	return c.constFloats("bias", []int{n}, b.Numpy()), nil
}

func (c *converter) finishConv(k *call, y, act string) (*val, error) {
	y, err := c.activation(act, y, 1)
	if err != nil {
		return nil, err
	}
	return c.finish(y, true, k), nil
}

// convertConv2D: Conv on the channels-first input, the kernel reordered
// to OIHW, groups as Keras' (consecutive blocks of input and output
// channels).
func convertConv2D(c *converter, k *call) (*val, error) {
	x := k.in[0]
	w, useBias, act, err := convCommon(k)
	if err != nil {
		return nil, err
	}
	filters, err := cfgInt(k.cfg, "filters", 0)
	if err != nil {
		return nil, err
	}
	groups, err := cfgInt(k.cfg, "groups", 1)
	if err != nil {
		return nil, err
	}
	xn, err := c.chw(x)
	if err != nil {
		return nil, err
	}
	ch := x.shape[3]
	if groups < 1 || ch%groups != 0 || filters%groups != 0 {
		return nil, fmt.Errorf("groups %d must divide the %d input channels and %d filters", groups, ch, filters)
	}
	kv, err := mustWeight(k.layer, "kernel", w.kernel[0], w.kernel[1], ch/groups, filters)
	if err != nil {
		return nil, err
	}
	ins := []string{xn, c.constFloats("kernel", []int{filters, ch / groups, w.kernel[0], w.kernel[1]},
		hwioToOIHW(kv.Numpy(), w.kernel[0], w.kernel[1], ch/groups, filters))}
	b, err := c.bias(k, useBias, filters)
	if err != nil {
		return nil, err
	}
	if b != "" {
		ins = append(ins, b)
	}
	as := append(w.attrs(x.shape, true), attrInt("group", groups))
	return c.finishConv(k, c.op("Conv", ins, "", as...), act)
}

// depthwiseKernel reorders Keras' depthwise kernel (kh, kw, in, mult) to
// a grouped Conv's (in*mult, 1, kh, kw): output channel c*mult+m, as
// TensorFlow orders them.
func depthwiseKernel(k []float32, kh, kw, in, mult int) []float32 {
	return hwioToOIHW(k, kh, kw, 1, in*mult) // (kh, kw, in, mult) is (kh, kw, 1, in*mult) in memory
}

// depthwise writes the depthwise Conv of x with the layer's kernel name,
// and its bias when useBias; it returns the output and its channel count.
func (c *converter) depthwise(k *call, x *val, w window, name string, useBias bool) (string, int, error) {
	mult, err := cfgInt(k.cfg, "depth_multiplier", 1)
	if err != nil {
		return "", 0, err
	}
	xn, err := c.chw(x)
	if err != nil {
		return "", 0, err
	}
	ch := x.shape[3]
	kv, err := mustWeight(k.layer, name, w.kernel[0], w.kernel[1], ch, mult)
	if err != nil {
		return "", 0, err
	}
	kn := c.constFloats(name, []int{ch * mult, 1, w.kernel[0], w.kernel[1]}, depthwiseKernel(kv.Numpy(), w.kernel[0], w.kernel[1], ch, mult))
	ins := []string{xn, kn}
	b, err := c.bias(k, useBias, ch*mult)
	if err != nil {
		return "", 0, err
	}
	if b != "" {
		ins = append(ins, b)
	}
	return c.op("Conv", ins, "", append(w.attrs(x.shape, true), attrInt("group", ch))...), ch * mult, nil
}

// convertDepthwiseConv2D: a Conv with one group per input channel.
func convertDepthwiseConv2D(c *converter, k *call) (*val, error) {
	w, useBias, act, err := convCommon(k)
	if err != nil {
		return nil, err
	}
	y, _, err := c.depthwise(k, k.in[0], w, "depthwise_kernel", useBias)
	if err != nil {
		return nil, err
	}
	return c.finishConv(k, y, act)
}

// convertSeparableConv2D: the depthwise Conv, then a 1x1 Conv with the bias.
func convertSeparableConv2D(c *converter, k *call) (*val, error) {
	w, useBias, act, err := convCommon(k)
	if err != nil {
		return nil, err
	}
	filters, err := cfgInt(k.cfg, "filters", 0)
	if err != nil {
		return nil, err
	}
	y, n, err := c.depthwise(k, k.in[0], w, "depthwise_kernel", false)
	if err != nil {
		return nil, err
	}
	pv, err := mustWeight(k.layer, "pointwise_kernel", 1, 1, n, filters)
	if err != nil {
		return nil, err
	}
	ins := []string{y, c.constFloats("pointwise_kernel", []int{filters, n, 1, 1}, hwioToOIHW(pv.Numpy(), 1, 1, n, filters))}
	b, err := c.bias(k, useBias, filters)
	if err != nil {
		return nil, err
	}
	if b != "" {
		ins = append(ins, b)
	}
	y = c.op("Conv", ins, "", attrInts("kernel_shape", 1, 1), attrInts("strides", 1, 1), attrInts("pads", 0, 0, 0, 0))
	return c.finishConv(k, y, act)
}

// convertConv2DTranspose: ConvTranspose with the kernel (kh, kw, filters,
// in) reordered to (in, filters, kh, kw), and pads that give Keras'
// output size: the transpose of the convolution from the output to the
// input, cropped by that convolution's padding before, and by whatever
// is left after (or extended by output_padding).
func convertConv2DTranspose(c *converter, k *call) (*val, error) {
	x := k.in[0]
	w, useBias, act, err := convCommon(k)
	if err != nil {
		return nil, err
	}
	filters, err := cfgInt(k.cfg, "filters", 0)
	if err != nil {
		return nil, err
	}
	outPad, err := cfgInts(k.cfg, "output_padding", 2, nil)
	if err != nil {
		return nil, err
	}
	xn, err := c.chw(x)
	if err != nil {
		return nil, err
	}
	ch := x.shape[3]
	if x.shape[1] < 0 || x.shape[2] < 0 {
		return nil, unsupported("an input of unknown height or width %v", x.shape)
	}
	kv, err := mustWeight(k.layer, "kernel", w.kernel[0], w.kernel[1], filters, ch)
	if err != nil {
		return nil, err
	}
	var before, after, extra [2]int
	for d := range 2 {
		op := -1
		if outPad != nil {
			op = outPad[d]
		}
		in, ek := x.shape[1+d], (w.kernel[d]-1)*w.dilations[d]+1
		out, err := ops.ConvTransposeOutputSize(in, w.kernel[d], w.strides[d], w.dilations[d], w.padding, op)
		if err != nil {
			return nil, err
		}
		_, pb, err := ops.ConvOutputSize(out, w.kernel[d], w.strides[d], w.dilations[d], w.padding)
		if err != nil {
			return nil, err
		}
		full := (in-1)*w.strides[d] + ek
		before[d] = pb
		if rest := full - pb - out; rest >= 0 {
			after[d] = rest
		} else {
			extra[d] = -rest
		}
	}
	// (kh, kw, filters, in) -> (in, filters, kh, kw): hwioToOIHW with in and out swapped.
	kn := c.constFloats("kernel", []int{ch, filters, w.kernel[0], w.kernel[1]}, hwioToOIHW(kv.Numpy(), w.kernel[0], w.kernel[1], filters, ch))
	ins := []string{xn, kn}
	b, err := c.bias(k, useBias, filters)
	if err != nil {
		return nil, err
	}
	if b != "" {
		ins = append(ins, b)
	}
	as := []attr{attrInts("kernel_shape", w.kernel...), attrInts("strides", w.strides...), attrInts("dilations", w.dilations...),
		attrInts("pads", before[0], before[1], after[0], after[1])}
	if extra != [2]int{} {
		as = append(as, attrInts("output_padding", extra[0], extra[1]))
	}
	return c.finishConv(k, c.op("ConvTranspose", ins, "", as...), act)
}
