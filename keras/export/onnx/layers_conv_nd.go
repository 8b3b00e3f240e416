package onnx

import (
	"fmt"
)

// The 1-D and 3-D convolutions and poolings: ONNX's Conv, MaxPool and
// AveragePool take (batch, channels, steps) and (batch, channels, depth,
// height, width) as they take NCHW images, so these layers hold their
// values channels-first as the 2-D ones do (see val), and a Conv1D stack
// transposes once at its input.

func init() {
	converters["Conv1D"] = convertConvND(1)
	converters["Conv3D"] = convertConvND(3)
	converters["MaxPooling1D"] = convertPoolingND(1, "MaxPool")
	converters["AveragePooling1D"] = convertPoolingND(1, "AveragePool")
	converters["MaxPooling3D"] = convertPoolingND(3, "MaxPool")
	converters["AveragePooling3D"] = convertPoolingND(3, "AveragePool")
	converters["GlobalAveragePooling3D"] = convertGlobalPooling3D("GlobalAveragePool")
	converters["GlobalMaxPooling3D"] = convertGlobalPooling3D("GlobalMaxPool")
	converters["DepthwiseConv1D"] = convertDepthwiseConv1D
	converters["SeparableConv1D"] = convertSeparableConv1D
}

// convertConvND: Conv over the channels-first sequence (n 1) or volume
// (n 3), the kernel (spatial..., in/groups, filters) reordered to
// (filters, in/groups, spatial...), groups as Keras' (consecutive blocks
// of channels). Conv1D's causal padding pads before the steps only.
func convertConvND(n int) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x := k.in[0]
		w, err := readWindowN(k.cfg, "kernel_size", n, n == 1)
		if err != nil {
			return nil, err
		}
		useBias, err := cfgBool(k.cfg, "use_bias", true)
		if err != nil {
			return nil, err
		}
		act, err := cfgActivation(k.cfg, "activation")
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
		xn, err := c.channelsFirst(x, n+2)
		if err != nil {
			return nil, err
		}
		ch := x.shape[n+1]
		if groups < 1 || ch%groups != 0 || filters < 1 || filters%groups != 0 {
			return nil, fmt.Errorf("groups %d must divide the %d input channels and %d filters", groups, ch, filters)
		}
		spatial := 1
		for _, d := range w.kernel {
			spatial *= d
		}
		kv, err := mustWeight(k.layer, "kernel", append(append([]int{}, w.kernel...), ch/groups, filters)...)
		if err != nil {
			return nil, err
		}
		ins := []string{xn, c.constFloats("kernel", append([]int{filters, ch / groups}, w.kernel...),
			spatialLast(kv.Numpy(), spatial, ch/groups, filters))}
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
}

// convertPoolingND: MaxPool or AveragePool on the channels-first input,
// as the 2-D poolings (count_include_pad 0: the mean of the steps inside
// the input under "same", as TensorFlow's).
func convertPoolingND(n int, op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x := k.in[0]
		w, err := readWindowN(k.cfg, "pool_size", n, false)
		if err != nil {
			return nil, err
		}
		xn, err := c.channelsFirst(x, n+2)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op(op, []string{xn}, "", w.attrs(x.shape, false)...), true, k), nil
	}
}

// convertGlobalPooling3D: GlobalAveragePool or GlobalMaxPool of the
// channels-first volume, (n, c, 1, 1, 1): kept as Keras' (n, 1, 1, 1, c)
// channels-first with keepdims, else flattened to (n, c).
func convertGlobalPooling3D(op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x := k.in[0]
		keep, err := cfgBool(k.cfg, "keepdims", false)
		if err != nil {
			return nil, err
		}
		df, err := cfgString(k.cfg, "data_format", "channels_last")
		if err != nil {
			return nil, err
		}
		if df != "channels_last" {
			return nil, unsupported("data_format %q", df)
		}
		xn, err := c.channelsFirst(x, 5)
		if err != nil {
			return nil, err
		}
		y := c.op(op, []string{xn}, "")
		if keep {
			return c.finish(y, true, k), nil
		}
		return c.finish(c.op("Flatten", []string{y}, "", attrInt("axis", 1)), false, k), nil
	}
}

// depthwise1D writes the depthwise Conv of a sequence (one group per
// input channel, depth_multiplier outputs each, channel c*mult+m as in
// TensorFlow) with its bias when useBias; it returns the output, its
// channel count and the window.
func (c *converter) depthwise1D(k *call, useBias bool) (string, int, window, error) {
	x := k.in[0]
	w, err := readWindowN(k.cfg, "kernel_size", 1, false)
	if err != nil {
		return "", 0, w, err
	}
	mult, err := cfgInt(k.cfg, "depth_multiplier", 1)
	if err != nil {
		return "", 0, w, err
	}
	xn, err := c.channelsFirst(x, 3)
	if err != nil {
		return "", 0, w, err
	}
	ch := x.shape[2]
	kv, err := mustWeight(k.layer, "depthwise_kernel", w.kernel[0], ch, mult)
	if err != nil {
		return "", 0, w, err
	}
	// (k, in, mult) is (k, 1, in*mult) in memory.
	ins := []string{xn, c.constFloats("depthwise_kernel", []int{ch * mult, 1, w.kernel[0]}, spatialLast(kv.Numpy(), w.kernel[0], 1, ch*mult))}
	b, err := c.bias(k, useBias, ch*mult)
	if err != nil {
		return "", 0, w, err
	}
	if b != "" {
		ins = append(ins, b)
	}
	return c.op("Conv", ins, "", append(w.attrs(x.shape, true), attrInt("group", ch))...), ch * mult, w, nil
}

// convertDepthwiseConv1D: a Conv with one group per input channel.
func convertDepthwiseConv1D(c *converter, k *call) (*val, error) {
	useBias, err := cfgBool(k.cfg, "use_bias", true)
	if err != nil {
		return nil, err
	}
	act, err := cfgActivation(k.cfg, "activation")
	if err != nil {
		return nil, err
	}
	y, _, _, err := c.depthwise1D(k, useBias)
	if err != nil {
		return nil, err
	}
	return c.finishConv(k, y, act)
}

// convertSeparableConv1D: the depthwise Conv, then a width-1 Conv with the bias.
func convertSeparableConv1D(c *converter, k *call) (*val, error) {
	useBias, err := cfgBool(k.cfg, "use_bias", true)
	if err != nil {
		return nil, err
	}
	act, err := cfgActivation(k.cfg, "activation")
	if err != nil {
		return nil, err
	}
	filters, err := cfgInt(k.cfg, "filters", 0)
	if err != nil {
		return nil, err
	}
	y, n, _, err := c.depthwise1D(k, false)
	if err != nil {
		return nil, err
	}
	pv, err := mustWeight(k.layer, "pointwise_kernel", 1, n, filters)
	if err != nil {
		return nil, err
	}
	ins := []string{y, c.constFloats("pointwise_kernel", []int{filters, n, 1}, spatialLast(pv.Numpy(), 1, n, filters))}
	b, err := c.bias(k, useBias, filters)
	if err != nil {
		return nil, err
	}
	if b != "" {
		ins = append(ins, b)
	}
	y = c.op("Conv", ins, "", attrInts("kernel_shape", 1), attrInts("strides", 1), attrInts("pads", 0, 0))
	return c.finishConv(k, y, act)
}
