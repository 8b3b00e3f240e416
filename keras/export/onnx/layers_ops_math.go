package onnx

// The comparisons, logic, casts, where, sign and reductions of
// keras.src.ops.numpy and core as operation nodes, as gokeras computes
// them (keras/layers/op_numpy.go): booleans are float32 1 and 0, a value
// is true where it is non-zero (NaN included), and every result is
// float32, so that the graph's values stay float as gokeras' do.

func init() {
	for class, op := range map[string]string{"Greater": "Greater", "GreaterEqual": "GreaterOrEqual", "Less": "Less", "LessEqual": "LessOrEqual"} {
		opConverters[class] = binaryWith(func(c *converter, ins []string) string { return c.toFloat(c.op(op, ins, "")) })
	}
	opConverters["LogicalXor"] = binaryWith(func(c *converter, ins []string) string {
		return c.toFloat(c.op("Xor", []string{c.nonZero(ins[0]), c.nonZero(ins[1])}, ""))
	})
	opConverters["LogicalNot"] = func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		return c.finish(c.toFloat(c.op("Equal", []string{c.float(x), c.scalar("zero", 0)}, "")), x.nchw, k), nil
	}
	opConverters["Sign"] = func(c *converter, k *call) (*val, error) {
		// gokeras' Sign: 1 above 0, -1 below, 0 otherwise (NaN and -0
		// included), where ONNX's Sign keeps NaN.
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		xn, zero := c.float(x), c.scalar("zero", 0)
		pos, neg := c.toFloat(c.op("Greater", []string{xn, zero}, "")), c.toFloat(c.op("Less", []string{xn, zero}, ""))
		return c.finish(c.op("Sub", []string{pos, neg}, ""), x.nchw, k), nil
	}
	opConverters["Reciprocal"] = func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op("Div", []string{c.scalar("one", 1), c.float(x)}, ""), x.nchw, k), nil
	}
	opConverters["Cast"] = convertCastOp
	opConverters["Where"] = convertWhereOp
	opConverters["Sum"] = reduceOp("ReduceSum", nil)
	opConverters["Mean"] = reduceOp("ReduceMean", nil)
	opConverters["Max"] = reduceOp("ReduceMax", nil)
	opConverters["Amax"] = reduceOp("ReduceMax", nil)
	opConverters["Min"] = reduceOp("ReduceMin", nil)
	opConverters["Amin"] = reduceOp("ReduceMin", nil)
	opConverters["All"] = reduceOp("ReduceMin", func(c *converter, x string) string { return c.toFloat(c.nonZero(x)) })
}

// toFloat casts a boolean value to float32 1 and 0.
func (c *converter) toFloat(b string) string {
	return c.op("Cast", []string{b}, "", attrInt("to", int(typeFloat)))
}

// nonZero is the boolean x != 0 of a float value (true for NaN).
func (c *converter) nonZero(x string) string {
	return c.op("Not", []string{c.op("Equal", []string{x, c.scalar("zero", 0)}, "")}, "")
}

// convertCastOp: keras.ops.cast as gokeras' ops.Cast: float32 and
// float64 keep the value; bool is x != 0; the integer types truncate
// toward zero in float32 (no wrap or saturation, NaN kept, -0 made 0),
// written as Floor or Ceil by the sign, plus 0. float16 and bfloat16,
// which gokeras rounds to, are refused.
func convertCastOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	d, _ := k.cfg["dtype"].(string)
	xn := c.float(x)
	switch d {
	case "float32", "float64":
		return c.finish(c.op("Identity", []string{xn}, ""), x.nchw, k), nil
	case "bool":
		return c.finish(c.toFloat(c.nonZero(xn)), x.nchw, k), nil
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64":
		zero := c.scalar("zero", 0)
		t := c.op("Where", []string{c.op("Less", []string{xn, zero}, ""), c.op("Ceil", []string{xn}, ""), c.op("Floor", []string{xn}, "")}, "")
		return c.finish(c.op("Add", []string{t, zero}, ""), x.nchw, k), nil
	}
	return nil, unsupported("cast to dtype %q (the exporter casts to float32, float64, bool and the integer types)", d)
}

// convertWhereOp: keras.ops.where(condition, x1, x2) as gokeras' Select:
// x1 where the condition is non-zero, x2 elsewhere, broadcast; the
// arguments tensors or numbers.
func convertWhereOp(c *converter, k *call) (*val, error) {
	args, err := opArgs(k)
	if err != nil {
		return nil, err
	}
	if len(args) != 3 || args[1] == nil || args[2] == nil {
		return nil, unsupported("where without both branches (the indices of nonzero entries)")
	}
	tensors, err := tensorArgs(args)
	if err != nil {
		return nil, err
	}
	names, nchw, err := c.same(tensors)
	if err != nil {
		return nil, err
	}
	ins := make([]string, 3)
	for i, a := range args {
		if _, ok := a.(*val); ok {
			ins[i], names = names[0], names[1:]
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
	return c.finish(c.op("Where", []string{c.nonZero(ins[0]), ins[1], ins[2]}, ""), nchw, k), nil
}

// reduceOp: keras.ops.sum, mean, max, min, all over the axis list with
// keepdims, in Keras' layout, after pre when set (all: of x != 0).
// ReduceSum takes its axes as an input at opset 17, the others as an
// attribute. axis=() is x itself, as in gokeras; None (every axis) and
// any list with the batch axis are refused, as the batch is symbolic
// (and gokeras refuses an output that does not keep it).
func reduceOp(op string, pre func(c *converter, x string) string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x, err := opInput(k)
		if err != nil {
			return nil, err
		}
		if k.cfg["initial"] != nil {
			return nil, unsupported("initial %v", k.cfg["initial"])
		}
		keep, err := cfgBool(k.cfg, "keepdims", false)
		if err != nil {
			return nil, err
		}
		as, given, err := opAxes(k, "axis", len(x.shape))
		if err != nil {
			return nil, err
		}
		if !given {
			return nil, unsupported("a reduction over every axis (axis None) reduces the batch")
		}
		xn := c.kerasFloat(x)
		if len(as) == 0 {
			return c.finish(c.op("Identity", []string{xn}, ""), false, k), nil
		}
		for _, a := range as {
			if a == 0 {
				return nil, unsupported("axis %v reduces the batch axis", k.cfg["axis"])
			}
		}
		if pre != nil {
			xn = pre(c, xn)
		}
		kd := attrInt("keepdims", map[bool]int{false: 0, true: 1}[keep])
		if op == "ReduceSum" {
			return c.finish(c.op(op, []string{xn, c.constInt64s("axes", []int{len(as)}, int64s(as))}, "", kd), false, k), nil
		}
		return c.finish(c.op(op, []string{xn}, "", attrInts("axes", as...), kd), false, k), nil
	}
}
