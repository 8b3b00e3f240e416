package onnx

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/keras/layers"
)

func init() {
	converters["MultiHeadAttention"] = convertMultiHeadAttention
}

// convertMultiHeadAttention writes Keras' MultiHeadAttention on
// sequences (batch, steps, features) as MatMul, Reshape, Transpose and
// Softmax nodes, in gokeras' order of operations: each of query, key and
// value projected by its kernel (features, heads, dim) as one MatMul and
// bias, split into heads (batch, heads, steps, dim); the query scaled by
// 1/sqrt(key_dim); the scores softmax(q·kᵀ) over the key's steps; the
// heads' weighted values projected back by the output kernel (heads,
// value_dim, features). The inputs are [query, value] or [query, value,
// key].
//
// A mask is gokeras' and Keras' masked softmax: the query's and the
// value's (or key's) timestep masks (Embedding mask_zero) and the causal
// mask (use_causal_mask) multiplied into m of (batch, 1, Tq, Tv), the
// logits l*m - 1e9*(1-m), their softmax times m. The output carries the
// query's mask, as the layer's does.
//
// Refused by name: attention_axes other than the steps, an output_shape
// of more than one axis, inputs of other ranks, the causal mask of
// sequences of unknown length (the mask is a constant), use_gate and
// sliding_window.
func convertMultiHeadAttention(c *converter, k *call) (*val, error) {
	l, ok := k.layer.(*layers.MultiHeadAttention)
	if !ok {
		return nil, unsupported("a MultiHeadAttention layer of type %T", k.layer)
	}
	if len(k.in) < 2 || len(k.in) > 3 {
		return nil, fmt.Errorf("takes [query, value] or [query, value, key], got %d inputs", len(k.in))
	}
	q, v := k.in[0], k.in[1]
	key := v
	if len(k.in) == 3 {
		key = k.in[2]
	}
	for _, x := range []*val{q, v, key} {
		if len(x.shape) != 3 {
			return nil, unsupported("inputs of shape %v (the exporter writes attention over sequences, rank 3)", x.shape)
		}
	}
	axes, err := cfgInts(k.cfg, "attention_axes", 0, nil)
	if err != nil {
		return nil, err
	}
	if axes != nil && !(len(axes) == 1 && (axes[0] == 1 || axes[0] == -2)) {
		return nil, unsupported("attention_axes %v (the steps only)", axes)
	}
	// Keras 3.15's gated attention and sliding window, which gokeras'
	// layer reports off; refused should it ever report them on.
	if gate, err := cfgBool(k.cfg, "use_gate", false); err != nil || gate {
		return nil, unsupported("use_gate %v", k.cfg["use_gate"])
	}
	if w := k.cfg["sliding_window"]; w != nil {
		return nil, unsupported("sliding_window %v", w)
	}
	h, kd, vd := l.NumHeads(), l.KeyDim(), l.ValueDim()
	useBias, err := cfgBool(k.cfg, "use_bias", true)
	if err != nil {
		return nil, err
	}
	out := q.shape[2]
	if os, ok := k.cfg["output_shape"]; ok && os != nil {
		dims, err := cfgInts(k.cfg, "output_shape", 0, nil)
		if err != nil {
			return nil, err
		}
		if len(dims) != 1 {
			return nil, unsupported("output_shape %v (one axis only)", dims)
		}
		out = dims[0]
	}
	// project is x·kernel + bias, then (batch, steps, heads, dim).
	project := func(x *val, name string, dim int) (string, error) {
		in := x.shape[2]
		kw, err := mustWeight(l, name+"/kernel", in, h, dim)
		if err != nil {
			return "", err
		}
		c.float(x)
		y := c.op("MatMul", []string{c.keras(x), c.constFloats(name+"_kernel", []int{in, h * dim}, kw.Numpy())}, "")
		if useBias {
			bw, err := mustWeight(l, name+"/bias", h, dim)
			if err != nil {
				return "", err
			}
			y = c.op("Add", []string{y, c.constFloats(name+"_bias", []int{h * dim}, bw.Numpy())}, "")
		}
		return c.op("Reshape", []string{y, c.constInt64s("heads", []int{4}, []int64{0, 0, int64(h), int64(dim)})}, ""), nil
	}
	qh, err := project(q, "query", kd)
	if err != nil {
		return nil, err
	}
	kh, err := project(key, "key", kd)
	if err != nil {
		return nil, err
	}
	vh, err := project(v, "value", vd)
	if err != nil {
		return nil, err
	}
	qt := c.op("Transpose", []string{qh}, "", attrInts("perm", 0, 2, 1, 3)) // (b, h, Tq, kd)
	qt = c.op("Mul", []string{qt, c.scalar("scale", float64(float32(1/math.Sqrt(float64(kd)))))}, "")
	kt := c.op("Transpose", []string{kh}, "", attrInts("perm", 0, 2, 3, 1)) // (b, h, kd, Tv)
	logits := c.op("MatMul", []string{qt, kt}, "")                          // (b, h, Tq, Tv)

	var m string
	and := func(x string) {
		if m == "" {
			m = x
			return
		}
		m = c.op("Mul", []string{m, x}, "")
	}
	if q.mask != "" {
		and(c.op("Unsqueeze", []string{q.mask, c.constInt64s("axes", []int{2}, []int64{1, 3})}, "")) // (b, 1, Tq, 1)
	}
	if v.mask != "" {
		and(c.op("Unsqueeze", []string{v.mask, c.constInt64s("axes", []int{2}, []int64{1, 2})}, "")) // (b, 1, 1, Tv)
	}
	if key != v && key.mask != "" {
		and(c.op("Unsqueeze", []string{key.mask, c.constInt64s("axes", []int{2}, []int64{1, 2})}, ""))
	}
	if l.UseCausalMask {
		t, s := q.shape[1], v.shape[1]
		if t < 0 || s < 0 {
			return nil, unsupported("use_causal_mask on sequences of unknown length (query %v, value %v)", q.shape, v.shape)
		}
		cm := make([]float32, t*s)
		for i := range t {
			for j := 0; j <= i && j < s; j++ {
				cm[i*s+j] = 1
			}
		}
		and(c.constFloats("causal_mask", []int{1, 1, t, s}, cm))
	}
	var probs string
	if m == "" {
		probs = c.op("Softmax", []string{logits}, "", attrInt("axis", -1))
	} else {
		neg := c.op("Mul", []string{c.op("Sub", []string{c.scalar("one", 1), m}, ""), c.scalar("minus_1e9", -1e9)}, "")
		x := c.op("Add", []string{c.op("Mul", []string{logits, m}, ""), neg}, "")
		probs = c.op("Mul", []string{c.op("Softmax", []string{x}, "", attrInt("axis", -1)), m}, "")
	}
	vt := c.op("Transpose", []string{vh}, "", attrInts("perm", 0, 2, 1, 3)) // (b, h, Tv, vd)
	o := c.op("MatMul", []string{probs, vt}, "")                            // (b, h, Tq, vd)
	o = c.op("Transpose", []string{o}, "", attrInts("perm", 0, 2, 1, 3))    // (b, Tq, h, vd)
	o = c.op("Reshape", []string{o, c.constInt64s("merge", []int{3}, []int64{0, 0, int64(h * vd)})}, "")
	ow, err := mustWeight(l, "attention_output/kernel", h, vd, out)
	if err != nil {
		return nil, err
	}
	y := c.op("MatMul", []string{o, c.constFloats("output_kernel", []int{h * vd, out}, ow.Numpy())}, "")
	if useBias {
		ob, err := mustWeight(l, "attention_output/bias", out)
		if err != nil {
			return nil, err
		}
		y = c.op("Add", []string{y, c.constFloats("output_bias", []int{out}, ob.Numpy())}, "")
	}
	res := c.finish(y, false, k)
	res.mask = q.mask
	return res, nil
}
