package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/gokeras/gokeras/keras/layers"
)

// Keras 3 records keras.ops calls made on symbolic tensors (`x + 3.0`,
// MobileNetV3's hard sigmoid, ConvNeXt's residual Add) as operation
// nodes ([layers.Operation]), whose classes share names with layers
// (the Add operation is not the Add layer). They have converters of
// their own: the elementwise arithmetic and activations here, the shape
// operations in layers_ops_array.go, comparisons, casts and reductions
// in layers_ops_math.go, the mask operations in layers_mask.go; any
// other operation is refused by name.

// opConverters convert operation nodes by Keras class.
var opConverters = map[string]convertFn{}

func init() {
	for class, op := range map[string]string{"Add": "Add", "Subtract": "Sub", "Multiply": "Mul", "Divide": "Div", "TrueDivide": "Div",
		"Maximum": "Max", "Minimum": "Min", "Power": "Pow"} {
		opConverters[class] = binaryOp(op)
	}
	for class, act := range map[string]string{"Relu": "relu", "Relu6": "relu6", "Sigmoid": "sigmoid", "HardSigmoid": "hard_sigmoid",
		"HardSilu": "hard_silu", "Silu": "silu", "Selu": "selu", "Softplus": "softplus", "Softsign": "softsign", "Tanh": "tanh"} {
		opConverters[class] = unaryActivation(act)
	}
	for class, op := range map[string]string{"Negative": "Neg", "Abs": "Abs", "Absolute": "Abs", "Sqrt": "Sqrt", "Exp": "Exp", "Log": "Log"} {
		opConverters[class] = unaryOp(op)
	}
	opConverters["Square"] = func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		xn := c.float(x)
		return c.finish(c.op("Mul", []string{xn, xn}, ""), x.nchw, k), nil
	}
	opConverters["Softmax"] = softmaxOp("Softmax")
	opConverters["LogSoftmax"] = softmaxOp("LogSoftmax")
	opConverters["Gelu"] = convertGeluOp
	opConverters["Elu"] = func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		alpha, err := cfgFloat(k.cfg, "alpha", 1)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op("Elu", []string{c.float(x)}, "", attrFloat("alpha", alpha)), x.nchw, k), nil
	}
	opConverters["LeakyRelu"] = func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		slope, err := cfgFloat(k.cfg, "negative_slope", 0.2)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op("LeakyRelu", []string{c.float(x)}, "", attrFloat("alpha", slope)), x.nchw, k), nil
	}
	opConverters["Clip"] = func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		lo, err := cfgFloat(k.cfg, "x_min", math.Inf(-1))
		if err != nil {
			return nil, err
		}
		hi, err := cfgFloat(k.cfg, "x_max", math.Inf(1))
		if err != nil {
			return nil, err
		}
		return c.finish(c.op("Clip", []string{c.float(x), c.scalar("min", lo), c.scalar("max", hi)}, ""), x.nchw, k), nil
	}
}

// opArgs returns an operation node's positional call arguments: an
// input's *val where the call had a tensor, the constant otherwise.
// Keyword arguments are refused.
func opArgs(k *call) ([]any, error) {
	o, ok := k.layer.(*layers.Operation)
	if !ok {
		return nil, fmt.Errorf("internal: not an operation node")
	}
	args, kwargs := o.CallArguments()
	if len(kwargs) > 0 {
		return nil, unsupported("keyword arguments %v", kwargs)
	}
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(layers.OpTensor); ok {
			if int(t) < 0 || int(t) >= len(k.in) {
				return nil, fmt.Errorf("argument %d is input %d of %d", i, t, len(k.in))
			}
			out[i] = k.in[t]
			continue
		}
		out[i] = a
	}
	return out, nil
}

// tensorArgs are the tensors among an operation's arguments (the others
// are constants), at least one.
func tensorArgs(args []any) ([]*val, error) {
	var tensors []*val
	for _, a := range args {
		if v, ok := a.(*val); ok {
			tensors = append(tensors, v)
		}
	}
	if len(tensors) == 0 {
		return nil, fmt.Errorf("arguments %v: no tensor among them", args)
	}
	return tensors, nil
}

// opInput is the one tensor argument of a unary operation.
func opInput(k *call) (*val, error) {
	args, err := opArgs(k)
	if err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, unsupported("%d arguments (the exporter writes the one-tensor call)", len(args))
	}
	x, ok := args[0].(*val)
	if !ok {
		return nil, fmt.Errorf("argument %v is not a tensor", args[0])
	}
	return x, nil
}

// binaryOp: two tensors (brought to one layout), or a tensor and a
// number (a scalar constant) or a constant array (EfficientNet's
// ImageNet stem multiplies by one scale per channel), in the call's
// order, so 2 - x is Sub(2, x). An array broadcasts as NumPy's, from the
// last axis: in Keras' layout as it is, channels-first reordered as the
// tensor is. Leading axes of one that reach the batch axis are dropped;
// an array that would broadcast over the batch axis is refused.
func binaryOp(op string) convertFn {
	return binaryWith(func(c *converter, ins []string) string { return c.op(op, ins, "") })
}

// binaryWith is binaryOp writing the two operands' nodes with write.
func binaryWith(write func(c *converter, ins []string) string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		args, err := opArgs(k)
		if err != nil {
			return nil, err
		}
		if len(args) != 2 {
			return nil, unsupported("%d arguments", len(args))
		}
		tensors, err := tensorArgs(args)
		if err != nil {
			return nil, err
		}
		names, nchw, err := c.same(tensors)
		if err != nil {
			return nil, err
		}
		for i, a := range args {
			if arr, ok := a.(layers.OpArray); ok {
				shape := arr.Shape
				for len(shape) >= len(tensors[0].shape) && len(shape) > 0 && shape[0] == 1 {
					shape = shape[1:] // the batch axis' 1, or more leading ones
				}
				if len(shape) >= len(tensors[0].shape) {
					return nil, unsupported("a constant array of shape %v against a tensor of shape %v (it broadcasts over the batch axis)", arr.Shape, tensors[0].shape)
				}
				args[i] = layers.OpArray{Shape: shape, Values: arr.Values, Dtype: arr.Dtype}
			}
		}
		ins := make([]string, 2)
		for i, a := range args {
			if _, ok := a.(*val); ok {
				ins[i], names = names[0], names[1:]
				continue
			}
			if arr, ok := a.(layers.OpArray); ok {
				if ins[i], err = c.opArray(arr, len(tensors[0].shape), nchw); err != nil {
					return nil, err
				}
				continue
			}
			f, ok := cfgNumber(a)
			if b, isBool := a.(bool); isBool {
				f, ok = map[bool]float64{false: 0, true: 1}[b], true
			}
			if !ok {
				return nil, unsupported("argument %v (%T): numbers and tensors only", a, a)
			}
			ins[i] = c.scalar("constant", f)
		}
		return c.finish(write(c, ins), nchw, k), nil
	}
}

// opArray adds a constant array argument for a tensor of rank r in the
// tensor's layout (nchw: channels-first, the array of at most r axes).
func (c *converter) opArray(a layers.OpArray, r int, nchw bool) (string, error) {
	n := 1
	for _, d := range a.Shape {
		if d < 0 || d > 0 && n > 1<<28/d {
			return "", fmt.Errorf("constant array of shape %v", a.Shape)
		}
		n *= d
	}
	if n != len(a.Values) {
		return "", fmt.Errorf("constant array of shape %v holds %d values", a.Shape, len(a.Values))
	}
	data := make([]float32, n)
	for i, v := range a.Values {
		data[i] = float32(v)
	}
	if !nchw || len(a.Shape) <= 1 && n == 1 {
		return c.constFloats("constant", a.Shape, data), nil
	}
	// Right-align the shape to rank r, then move the last axis to 1.
	full := make([]int, r)
	for i := range full {
		full[i] = 1
	}
	copy(full[r-len(a.Shape):], a.Shape)
	perm := toFirst(r)
	dims := make([]int, r)
	for i, p := range perm {
		dims[i] = full[p]
	}
	strides := make([]int, r) // of full, row-major
	st := 1
	for d := r - 1; d >= 0; d-- {
		strides[d] = st
		st *= full[d]
	}
	out := make([]float32, n)
	idx := make([]int, r) // over dims
	for i := range out {
		src := 0
		for d, p := range perm {
			src += idx[d] * strides[p]
		}
		out[i] = data[src]
		for d := r - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < dims[d] {
				break
			}
			idx[d] = 0
		}
	}
	// The leading batch axis of 1 is dropped: broadcasting adds it back.
	return c.constFloats("constant", dims[1:], out), nil
}

func unaryActivation(act string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		y, err := c.activation(act, c.float(x), lastAxis(x))
		if err != nil {
			return nil, err
		}
		return c.finish(y, x.nchw, k), nil
	}
}

func unaryOp(op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op(op, []string{c.float(x)}, ""), x.nchw, k), nil
	}
}

func softmaxOp(op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		a, err := cfgInt(k.cfg, "axis", -1)
		if err != nil {
			return nil, unsupported("axis %v (one axis only)", k.cfg["axis"])
		}
		ax, err := axis(a, len(x.shape), x.nchw)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op(op, []string{c.float(x)}, "", attrInt("axis", ax)), x.nchw, k), nil
	}
}

// convertGeluOp: keras.ops.gelu, whose approximate defaults to true:
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
func convertGeluOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	approx, err := cfgBool(k.cfg, "approximate", true)
	if err != nil {
		return nil, err
	}
	xn := c.float(x)
	if !approx {
		y, err := c.activation("gelu", xn, lastAxis(x))
		if err != nil {
			return nil, err
		}
		return c.finish(y, x.nchw, k), nil
	}
	cube := c.op("Mul", []string{c.op("Mul", []string{xn, xn}, ""), xn}, "")
	inner := c.op("Add", []string{xn, c.op("Mul", []string{cube, c.scalar("coefficient", 0.044715)}, "")}, "")
	t := c.op("Tanh", []string{c.op("Mul", []string{inner, c.scalar("sqrt_2_over_pi", math.Sqrt(2/math.Pi))}, "")}, "")
	h := c.op("Add", []string{t, c.scalar("one", 1)}, "")
	return c.finish(c.op("Mul", []string{c.op("Mul", []string{xn, h}, ""), c.scalar("half", 0.5)}, ""), x.nchw, k), nil
}

func init() {
	converters["Normalization"] = convertNormalization
	converters["LayerScale"] = convertLayerScale
}

// channelConst adds per-channel values along Keras' last axis of v: [n]
// in Keras' layout, [n, 1, ...] channels-first.
func (c *converter) channelConst(name string, v *val, data []float32) string {
	return c.constFloats(name, channelDims(len(data), len(v.shape), v.nchw), data)
}

// convertLayerScale (keras.src.applications.convnext): x * gamma along
// the channels.
func convertLayerScale(c *converter, k *call) (*val, error) {
	x := k.in[0]
	n := x.shape[len(x.shape)-1]
	// Its one weight: Keras leaves it unnamed ("variable", "variable_1",
	// ... in the order they are made).
	ws := k.layer.Weights()
	if len(ws) != 1 {
		return nil, fmt.Errorf("has %d weights, want its scale", len(ws))
	}
	g := ws[0]
	if gs := g.Shape(); len(gs) != 1 || (gs[0] != n && n >= 0) {
		return nil, fmt.Errorf("gamma of shape %v for an input of shape %v", gs, x.shape)
	}
	xn := c.float(x)
	return c.finish(c.op("Mul", []string{xn, c.channelConst("gamma", x, g.Numpy())}, ""), x.nchw, k), nil
}

// convertNormalization: (x - mean) / max(sqrt(variance), 1e-7), or mean +
// x * that when inverted, with the layer's mean and variance (weights, or
// the constants of its config) broadcast over the axes it does not keep.
// The standard deviation is worked out here, rounded as gokeras rounds
// it.
func convertNormalization(c *converter, k *call) (*val, error) {
	x := k.in[0]
	r := len(x.shape)
	var keep []int
	switch a := k.cfg["axis"].(type) {
	case nil:
		keep = []int{r - 1}
	case []any:
		for _, e := range a {
			f, ok := cfgNumber(e)
			if !ok {
				return nil, fmt.Errorf("axis %v", a)
			}
			keep = append(keep, int(f))
		}
	default:
		v, err := cfgInt(k.cfg, "axis", -1)
		if err != nil {
			return nil, err
		}
		keep = []int{v}
	}
	bshape := make([]int, r)
	for d := range bshape {
		bshape[d] = 1
	}
	for i, a := range keep {
		if a < 0 {
			a += r
		}
		if a <= 0 || a >= r || x.shape[a] < 0 {
			return nil, fmt.Errorf("kept axis %d of input shape %v", keep[i], x.shape)
		}
		keep[i] = a
		bshape[a] = x.shape[a]
	}
	slices.Sort(keep)
	n := 1
	for _, d := range bshape {
		n *= d
	}
	invert, err := cfgBool(k.cfg, "invert", false)
	if err != nil {
		return nil, err
	}
	var mean, variance []float64
	if k.cfg["mean"] != nil {
		for _, key := range []string{"mean", "variance"} {
			var vs []float64
			switch v := k.cfg[key].(type) {
			case []any:
				for _, e := range v {
					f, ok := cfgNumber(e)
					if !ok {
						return nil, fmt.Errorf("config %q holds %v", key, e)
					}
					vs = append(vs, f)
				}
			default:
				f, err := cfgFloat(k.cfg, key, 0)
				if err != nil {
					return nil, err
				}
				vs = []float64{f}
			}
			if len(vs) != 1 && len(vs) != n {
				return nil, fmt.Errorf("config %q has %d values for %d kept positions", key, len(vs), n)
			}
			if key == "mean" {
				mean = vs
			} else {
				variance = vs
			}
		}
	} else {
		mw, err := mustWeight(k.layer, "mean")
		if err != nil {
			return nil, err
		}
		vw, err := mustWeight(k.layer, "variance")
		if err != nil {
			return nil, err
		}
		for _, f := range mw.Numpy() {
			mean = append(mean, float64(f))
		}
		for _, f := range vw.Numpy() {
			variance = append(variance, float64(f))
		}
		if len(mean) != n || len(variance) != n {
			return nil, fmt.Errorf("mean and variance of %d and %d values for %d kept positions", len(mean), len(variance), n)
		}
	}
	const epsilon = 1e-7 // Keras' backend.epsilon()
	m, sd := make([]float32, n), make([]float32, n)
	for i := range n {
		pick := func(v []float64) float64 {
			if len(v) == 1 {
				return v[0]
			}
			return v[i]
		}
		m[i] = float32(pick(mean))
		sd[i] = float32(math.Max(math.Sqrt(float64(float32(pick(variance)))), epsilon))
	}
	xn := c.float(x)
	nchw := x.nchw && (len(keep) == 0 || slices.Equal(keep, []int{r - 1}))
	dims := bshape[1:] // broadcast against the batch
	if nchw {
		dims = channelDims(bshape[r-1], r, true)
	} else if x.nchw {
		xn = c.keras(x)
	}
	mn, sn := c.constFloats("mean", dims, m), c.constFloats("stddev", dims, sd)
	var y string
	if invert {
		y = c.op("Add", []string{mn, c.op("Mul", []string{xn, sn}, "")}, "")
	} else {
		y = c.op("Div", []string{c.op("Sub", []string{xn, mn}, ""), sn}, "")
	}
	return c.finish(y, nchw, k), nil
}
