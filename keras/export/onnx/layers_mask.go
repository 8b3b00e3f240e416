package onnx

import (
	"fmt"
	"slices"
)

// Timestep masks. A Keras mask is a (batch, steps) boolean that gokeras
// holds as float32 1 and 0, and so does the graph: val.mask names it on
// the value that carries it. Embedding(mask_zero) and Masking set it (a
// Go-built model's masks travel with the tensors), and a Keras file
// passes it to a layer's call explicitly, as operation nodes (NotEqual,
// Any, LogicalOr) whose result gokeras' MaskAttach node attaches to the
// call's input. The layers that read it (the recurrent ones,
// Bidirectional, TimeDistributed, GlobalAveragePooling1D, Attention,
// MultiHeadAttention) take it from val.mask; the layers between carry it
// on as gokeras' do (Keras' compute_mask: layers.MaskRuleOf, see
// mask_propagation.go), every other layer's output carries none.

func init() {
	converters["Masking"] = convertMasking
	converters["MaskAttach"] = convertMaskAttach
	compare := func(not bool) convertFn {
		return binaryWith(func(c *converter, ins []string) string {
			eq := c.op("Equal", ins, "")
			if not {
				eq = c.op("Not", []string{eq}, "")
			}
			return c.op("Cast", []string{eq}, "", attrInt("to", int(typeFloat)))
		})
	}
	opConverters["Equal"] = compare(false)
	opConverters["NotEqual"] = compare(true)
	logical := func(op string) convertFn {
		// gokeras' LogicalAnd and LogicalOr: of its operands != 0.
		return binaryWith(func(c *converter, ins []string) string {
			a := c.op("Cast", []string{ins[0]}, "", attrInt("to", int(typeBool)))
			b := c.op("Cast", []string{ins[1]}, "", attrInt("to", int(typeBool)))
			return c.op("Cast", []string{c.op(op, []string{a, b}, "")}, "", attrInt("to", int(typeFloat)))
		})
	}
	opConverters["LogicalAnd"] = logical("And")
	opConverters["LogicalOr"] = logical("Or")
	opConverters["Any"] = convertAnyOp
	opConverters["ConvertToTensor"] = convertToTensorOp
}

// convertMasking: Keras' Masking, as gokeras': the mask is any(x !=
// mask_value) over the features, the output x times the mask (a masked
// step's features are zeros), carrying the mask.
func convertMasking(c *converter, k *call) (*val, error) {
	x := k.in[0]
	r := len(x.shape)
	if r < 3 {
		return nil, fmt.Errorf("needs a (batch, steps, features...) input, got %v", x.shape)
	}
	mv, err := cfgFloat(k.cfg, "mask_value", 0)
	if err != nil {
		return nil, err
	}
	c.float(x)
	xn := c.keras(x)
	ne := c.op("Cast", []string{c.op("Not", []string{c.op("Equal", []string{xn, c.scalar("mask_value", mv)}, "")}, "")}, "", attrInt("to", int(typeFloat)))
	var feats []int
	for a := 2; a < r; a++ {
		feats = append(feats, a)
	}
	keep := c.op("ReduceMax", []string{ne}, "", attrInts("axes", feats...), attrInt("keepdims", 1)) // (batch, steps, 1...)
	y := c.finish(c.op("Mul", []string{xn, keep}, ""), false, k)
	y.mask = c.op("Squeeze", []string{keep, c.constInt64s("features", []int{len(feats)}, int64s(feats))}, "")
	return y, nil
}

// convertMaskAttach: the input itself, carrying the second input as its
// mask (a (batch, steps) value), as gokeras' node passes a Keras call's
// mask argument.
func convertMaskAttach(c *converter, k *call) (*val, error) {
	if len(k.in) != 2 {
		return nil, fmt.Errorf("takes a tensor and its mask, got %d inputs", len(k.in))
	}
	x, m := k.in[0], k.in[1]
	if len(m.shape) != 2 || len(x.shape) < 2 {
		return nil, unsupported("a mask of shape %v for a tensor of shape %v (the exporter writes (batch, steps) timestep masks)", m.shape, x.shape)
	}
	c.float(m)
	y := *x
	y.mask = c.keras(m)
	return &y, nil
}

// convertAnyOp: keras.ops.any, gokeras' max of x != 0 over the axes (all
// of them when axis is None).
func convertAnyOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	keep, err := cfgBool(k.cfg, "keepdims", false)
	if err != nil {
		return nil, err
	}
	axes, err := cfgInts(k.cfg, "axis", 0, nil)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	var as []int
	for _, a := range axes {
		ax, err := axis(a, r, false)
		if err != nil {
			return nil, err
		}
		as = append(as, ax)
	}
	if axes == nil {
		for a := range r {
			as = append(as, a)
		}
	}
	if !keep && slices.Contains(as, 0) {
		return nil, unsupported("any over the batch axis without keepdims")
	}
	c.float(x)
	b := c.op("Cast", []string{c.op("Cast", []string{c.keras(x)}, "", attrInt("to", int(typeBool)))}, "", attrInt("to", int(typeFloat)))
	kd := 0
	if keep {
		kd = 1
	}
	return c.finish(c.op("ReduceMax", []string{b}, "", attrInts("axes", as...), attrInt("keepdims", kd)), false, k), nil
}

// convertToTensorOp: keras.ops.convert_to_tensor of a tensor is the
// tensor (gokeras' values are float32 whatever the dtype asked).
func convertToTensorOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	if d, _ := k.cfg["dtype"].(string); d != "" && d != "float32" && d != "bool" {
		return nil, unsupported("convert_to_tensor to dtype %q", d)
	}
	y := *x
	y.mask = ""
	return &y, nil
}
