package onnx

import (
	"fmt"
)

func init() {
	converters["Dense"] = convertDense
	converters["Activation"] = convertActivation
	converters["ReLU"] = convertReLU
	converters["ELU"] = convertELU
	converters["LeakyReLU"] = convertLeakyReLU
	converters["Softmax"] = convertSoftmax
	for _, class := range []string{"Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D",
		"GaussianNoise", "GaussianDropout", "AlphaDropout", "Identity", "ActivityRegularization"} {
		converters[class] = convertIdentity
	}
	converters["Flatten"] = convertFlatten
	converters["Reshape"] = convertReshape
	converters["Rescaling"] = convertRescaling
	converters["Embedding"] = convertEmbedding
	converters["GlobalAveragePooling1D"] = convertGlobalPooling1D
	converters["GlobalMaxPooling1D"] = convertGlobalPooling1D
}

// lastAxis is the axis of Keras' last axis of v in v's layout.
func lastAxis(v *val) int {
	if v.nchw {
		return 1
	}
	return len(v.shape) - 1
}

// convertIdentity: the dropout and noise layers are the identity in
// inference, as Keras runs an exported model. The output is the input
// value itself, so it keeps its layout and mask.
func convertIdentity(_ *converter, k *call) (*val, error) {
	if len(k.in) != 1 {
		return nil, fmt.Errorf("takes one input, got %d", len(k.in))
	}
	return k.in[0], nil
}

// convertDense: x·kernel + bias on Keras' last axis (the input in Keras'
// layout), then the activation. Rank 2 is one Gemm; higher ranks MatMul
// (broadcast over the leading axes) and Add.
func convertDense(c *converter, k *call) (*val, error) {
	x := k.in[0]
	units, err := cfgInt(k.cfg, "units", 0)
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
	in := x.shape[len(x.shape)-1]
	kw, err := mustWeight(k.layer, "kernel", in, units)
	if err != nil {
		return nil, err
	}
	c.float(x)
	if x.nchw {
		// Dense on a channels-first image is a 1x1 convolution: no
		// transposes around it (ConvNeXt's pointwise layers); likewise
		// of width 1 on sequences and 1x1x1 on volumes.
		ones := make([]int, len(x.shape)-2)
		for i := range ones {
			ones[i] = 1
		}
		ins := []string{x.name, c.constFloats("kernel", append([]int{units, in}, ones...), hwioToOIHW(kw.Numpy(), 1, 1, in, units))}
		b, err := c.bias(k, useBias, units)
		if err != nil {
			return nil, err
		}
		if b != "" {
			ins = append(ins, b)
		}
		y := c.op("Conv", ins, "", attrInts("kernel_shape", ones...), attrInts("strides", ones...), attrInts("pads", make([]int, 2*len(ones))...))
		return c.finishConv(k, y, act)
	}
	xn := c.keras(x)
	kn := c.constFloats("kernel", []int{in, units}, kw.Numpy())
	var y string
	var bn string
	if useBias {
		bw, err := mustWeight(k.layer, "bias", units)
		if err != nil {
			return nil, err
		}
		bn = c.constFloats("bias", []int{units}, bw.Numpy())
	}
	if len(x.shape) == 2 {
		ins := []string{xn, kn}
		if bn != "" {
			ins = append(ins, bn)
		}
		y = c.op("Gemm", ins, "")
	} else {
		y = c.op("MatMul", []string{xn, kn}, "")
		if bn != "" {
			y = c.op("Add", []string{y, bn}, "")
		}
	}
	if y, err = c.activation(act, y, len(x.shape)-1); err != nil {
		return nil, err
	}
	return c.finish(y, false, k), nil
}

func convertActivation(c *converter, k *call) (*val, error) {
	act, err := cfgActivation(k.cfg, "activation")
	if err != nil {
		return nil, err
	}
	x := k.in[0]
	y, err := c.activation(act, c.float(x), lastAxis(x))
	if err != nil {
		return nil, err
	}
	if y == x.name {
		return x, nil // linear
	}
	return c.finish(y, x.nchw, k), nil
}

func convertSoftmax(c *converter, k *call) (*val, error) {
	x := k.in[0]
	a, err := cfgInt(k.cfg, "axis", -1)
	if err != nil {
		return nil, err
	}
	ax, err := axis(a, len(x.shape), x.nchw)
	if err != nil {
		return nil, err
	}
	return c.finish(c.op("Softmax", []string{c.float(x)}, "", attrInt("axis", ax)), x.nchw, k), nil
}

// convertReLU: Keras' relu(x, negative_slope, max_value, threshold): x
// where x >= threshold, else negative_slope*(x - threshold); then at most
// max_value.
func convertReLU(c *converter, k *call) (*val, error) {
	x := k.in[0]
	slope, err := cfgFloat(k.cfg, "negative_slope", 0)
	if err != nil {
		return nil, err
	}
	thr, err := cfgFloat(k.cfg, "threshold", 0)
	if err != nil {
		return nil, err
	}
	maxV, err := cfgFloat(k.cfg, "max_value", -1)
	if err != nil {
		return nil, err
	}
	xn := c.float(x)
	var y string
	switch {
	case thr == 0 && slope == 0:
		y = c.op("Relu", []string{xn}, "")
	case thr == 0:
		y = c.op("LeakyRelu", []string{xn}, "", attrFloat("alpha", slope))
	default:
		t := c.scalar("threshold", thr)
		below := c.op("Mul", []string{c.op("Sub", []string{xn, t}, ""), c.scalar("negative_slope", slope)}, "")
		y = c.op("Where", []string{c.op("GreaterOrEqual", []string{xn, t}, ""), xn, below}, "")
	}
	if maxV >= 0 {
		y = c.op("Min", []string{y, c.scalar("max_value", maxV)}, "")
	}
	return c.finish(y, x.nchw, k), nil
}

func convertELU(c *converter, k *call) (*val, error) {
	x := k.in[0]
	alpha, err := cfgFloat(k.cfg, "alpha", 1)
	if err != nil {
		return nil, err
	}
	return c.finish(c.op("Elu", []string{c.float(x)}, "", attrFloat("alpha", alpha)), x.nchw, k), nil
}

func convertLeakyReLU(c *converter, k *call) (*val, error) {
	x := k.in[0]
	slope, err := cfgFloat(k.cfg, "negative_slope", -1)
	if err != nil {
		return nil, err
	}
	if slope < 0 { // Keras 2's key
		if slope, err = cfgFloat(k.cfg, "alpha", 0.3); err != nil {
			return nil, err
		}
	}
	return c.finish(c.op("LeakyRelu", []string{c.float(x)}, "", attrFloat("alpha", slope)), x.nchw, k), nil
}

// convertFlatten flattens in Keras' channels-last order, the order the
// next Dense layer's kernel rows follow.
func convertFlatten(c *converter, k *call) (*val, error) {
	x := k.in[0]
	c.float(x)
	return c.finish(c.op("Flatten", []string{c.kerasOrder(x)}, "", attrInt("axis", 1)), false, k), nil
}

// convertReshape reshapes in Keras' layout; the batch dimension is
// copied (ONNX Reshape's 0), so any batch size runs.
func convertReshape(c *converter, k *call) (*val, error) {
	x := k.in[0]
	target, err := cfgInts(k.cfg, "target_shape", 0, nil)
	if err != nil {
		return nil, err
	}
	if target == nil {
		return nil, fmt.Errorf("config has no target_shape")
	}
	shape := []int64{0}
	for _, d := range target {
		if d == 0 || d < -1 {
			return nil, fmt.Errorf("target_shape %v has a dimension %d", target, d)
		}
		shape = append(shape, int64(d))
	}
	c.float(x)
	sn := c.constInt64s("shape", []int{len(shape)}, shape)
	return c.finish(c.op("Reshape", []string{c.kerasOrder(x), sn}, ""), false, k), nil
}

// convertRescaling: x*scale + offset, each a number or a vector along
// Keras' last axis.
func convertRescaling(c *converter, k *call) (*val, error) {
	x := k.in[0]
	xn := c.float(x)
	nchw := x.nchw
	operand := func(key string, def float64) (string, bool, error) {
		if vs, ok := k.cfg[key].([]any); ok {
			data := make([]float32, len(vs))
			for i, v := range vs {
				f, ok := cfgNumber(v)
				if !ok {
					return "", false, fmt.Errorf("config %q holds %v, want numbers", key, v)
				}
				data[i] = float32(f)
			}
			// Keras' last axis is axis 1 channels-first.
			return c.constFloats(key, channelDims(len(data), len(x.shape), nchw), data), true, nil
		}
		f, err := cfgFloat(k.cfg, key, def)
		if err != nil {
			return "", false, err
		}
		if f == def {
			return "", false, nil
		}
		return c.scalar(key, f), true, nil
	}
	s, useS, err := operand("scale", 1)
	if err != nil {
		return nil, err
	}
	o, useO, err := operand("offset", 0)
	if err != nil {
		return nil, err
	}
	y := xn
	if useS {
		y = c.op("Mul", []string{y, s}, "")
	}
	if useO {
		y = c.op("Add", []string{y, o}, "")
	}
	if y == xn {
		y = c.op("Identity", []string{xn}, "")
	}
	return c.finish(y, nchw, k), nil
}

// convertEmbedding gathers rows of the table; ids that come as floats
// are cast to integers first (truncated, as Keras casts them). With
// mask_zero the output carries the mask ids != 0 to the next layer, as
// gokeras' Embedding does.
func convertEmbedding(c *converter, k *call) (*val, error) {
	x := k.in[0]
	inDim, err := cfgInt(k.cfg, "input_dim", 0)
	if err != nil {
		return nil, err
	}
	outDim, err := cfgInt(k.cfg, "output_dim", 0)
	if err != nil {
		return nil, err
	}
	maskZero, err := cfgBool(k.cfg, "mask_zero", false)
	if err != nil {
		return nil, err
	}
	w, err := mustWeight(k.layer, "embeddings", inDim, outDim)
	if err != nil {
		return nil, err
	}
	raw := c.keras(x)
	ids := raw
	if x.dtype == typeFloat {
		ids = c.op("Cast", []string{ids}, "", attrInt("to", int(typeInt64)))
	}
	table := c.constFloats("embeddings", []int{inDim, outDim}, w.Numpy())
	y := c.finish(c.op("Gather", []string{table, ids}, "", attrInt("axis", 0)), false, k)
	if maskZero && len(x.shape) == 2 {
		// gokeras' mask is ids != 0 before the ids are truncated: a
		// float id of 0.5 gathers row 0 but is not masked.
		var eq string
		switch x.dtype {
		case typeFloat:
			eq = c.op("Equal", []string{raw, c.scalar("zero", 0)}, "")
		default:
			i64 := ids
			if x.dtype != typeInt64 {
				i64 = c.op("Cast", []string{ids}, "", attrInt("to", int(typeInt64)))
			}
			eq = c.op("Equal", []string{i64, c.constInt64s("zero", nil, []int64{0})}, "")
		}
		ne := c.op("Not", []string{eq}, "")
		y.mask = c.op("Cast", []string{ne}, "", attrInt("to", int(typeFloat)))
	}
	return y, nil
}

// convertGlobalPooling1D: the mean or maximum over the steps (axis 1);
// the mean over the unmasked steps when the input carries a mask, as
// Keras averages them.
func convertGlobalPooling1D(c *converter, k *call) (*val, error) {
	x := k.in[0]
	if len(x.shape) != 3 {
		return nil, fmt.Errorf("needs a rank-3 (batch, steps, features) input, got %v", x.shape)
	}
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
	kd := 0
	if keep {
		kd = 1
	}
	// The steps are axis 1 in Keras' layout, 2 channels-first (after a
	// Conv1D); a kept axis of one step keeps the layout.
	xn := c.float(x)
	steps, feat := 1, 2
	if x.nchw {
		steps, feat = 2, 1
	}
	var y string
	switch {
	case k.layer.ClassName() == "GlobalMaxPooling1D":
		y = c.op("ReduceMax", []string{xn}, "", attrInts("axes", steps), attrInt("keepdims", kd))
	case x.mask != "":
		m := c.op("Unsqueeze", []string{x.mask, c.constInt64s("axes", []int{1}, []int64{int64(feat)})}, "")
		num := c.op("ReduceSum", []string{c.op("Mul", []string{xn, m}, ""), c.constInt64s("steps", []int{1}, []int64{int64(steps)})}, "", attrInt("keepdims", kd))
		den := c.op("ReduceSum", []string{m, c.constInt64s("steps", []int{1}, []int64{int64(steps)})}, "", attrInt("keepdims", kd))
		y = c.op("Div", []string{num, den}, "")
	default:
		y = c.op("ReduceMean", []string{xn}, "", attrInts("axes", steps), attrInt("keepdims", kd))
	}
	return c.finish(y, x.nchw && keep, k), nil
}
