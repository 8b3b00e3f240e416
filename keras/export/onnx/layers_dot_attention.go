package onnx

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
)

func init() {
	converters["Attention"] = convertAttention
	converters["AdditiveAttention"] = convertAttention
}

// convertAttention writes keras.layers.Attention (and AdditiveAttention,
// the same layer in gokeras) on sequences, in gokeras' order of
// operations: the scores q·kᵀ (MatMul), times the learned scale with
// use_scale; or with score_mode "concat" w·sum(tanh(scale·(q + k))) over
// the features (q as (batch, Tq, 1, dim) plus k as (batch, 1, Tv, dim));
// AdditiveAttention's sum(scale·tanh(q + k)). The value's mask and the
// causal mask m lower the masked scores, s - 1e9·(1 - m); the softmax
// over Tv weighs the values (MatMul); the query's mask zeroes the output
// at its masked steps and travels with it. Dropout is the identity in
// inference. The inputs are [query, value] or [query, value, key].
//
// Refused by name: inputs other than sequences (rank 3), and the causal
// mask of sequences of unknown length (it is a constant).
func convertAttention(c *converter, k *call) (*val, error) {
	var l *layers.Attention
	switch x := k.layer.(type) {
	case *layers.Attention:
		l = x
	case *layers.AdditiveAttention:
		l = &x.Attention
	default:
		return nil, unsupported("an attention layer of type %T", k.layer)
	}
	additive := k.layer.ClassName() == "AdditiveAttention"
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
		c.float(x)
	}
	mode, err := cfgString(k.cfg, "score_mode", "dot")
	if err != nil {
		return nil, err
	}
	if additive {
		mode = "additive"
	}
	qn, vn, kn := c.keras(q), c.keras(v), c.keras(key)
	scale := func() string {
		sv := l.Scale.Numpy()
		return c.constFloats("scale", []int{len(sv)}, sv)
	}
	var s string
	switch mode {
	case "dot":
		s = c.op("MatMul", []string{qn, c.op("Transpose", []string{kn}, "", attrInts("perm", 0, 2, 1))}, "")
		if l.Scale != nil {
			s = c.op("Mul", []string{scale(), s}, "")
		}
	case "concat", "additive":
		qe := c.op("Unsqueeze", []string{qn, c.constInt64s("axes", []int{1}, []int64{2})}, "") // (b, Tq, 1, dim)
		ke := c.op("Unsqueeze", []string{kn, c.constInt64s("axes", []int{1}, []int64{1})}, "") // (b, 1, Tv, dim)
		sum := c.op("Add", []string{qe, ke}, "")
		last := c.constInt64s("features", []int{1}, []int64{-1})
		switch {
		case additive && l.Scale != nil:
			s = c.op("ReduceSum", []string{c.op("Mul", []string{scale(), c.op("Tanh", []string{sum}, "")}, ""), last}, "", attrInt("keepdims", 0))
		case additive:
			s = c.op("ReduceSum", []string{c.op("Tanh", []string{sum}, ""), last}, "", attrInt("keepdims", 0))
		default:
			if l.Scale != nil {
				sum = c.op("Mul", []string{scale(), sum}, "")
			}
			if l.ConcatScoreWeight == nil {
				return nil, fmt.Errorf("score_mode concat without its concat_score_weight")
			}
			w := c.constFloats("concat_score_weight", []int{1}, l.ConcatScoreWeight.Numpy())
			s = c.op("Mul", []string{w, c.op("ReduceSum", []string{c.op("Tanh", []string{sum}, ""), last}, "", attrInt("keepdims", 0))}, "")
		}
	default:
		return nil, unsupported("score_mode %q", mode)
	}
	var m string
	if v.mask != "" {
		m = c.op("Unsqueeze", []string{v.mask, c.constInt64s("axes", []int{1}, []int64{1})}, "") // (b, 1, Tv)
	}
	if l.UseCausalMask {
		tq, tv := q.shape[1], key.shape[1]
		if tq < 0 || tv < 0 {
			return nil, unsupported("use_causal_mask on sequences of unknown length (query %v, key %v)", q.shape, key.shape)
		}
		cm := make([]float32, tq*tv)
		for i := range tq {
			for j := 0; j <= i && j < tv; j++ {
				cm[i*tv+j] = 1
			}
		}
		cn := c.constFloats("causal_mask", []int{1, tq, tv}, cm)
		if m == "" {
			m = cn
		} else {
			m = c.op("Mul", []string{m, cn}, "")
		}
	}
	if m != "" {
		s = c.op("Sub", []string{s, c.op("Mul", []string{c.op("Sub", []string{c.scalar("one", 1), m}, ""), c.scalar("1e9", 1e9)}, "")}, "")
	}
	p := c.op("Softmax", []string{s}, "", attrInt("axis", -1))
	y := c.op("MatMul", []string{p, vn}, "")
	if q.mask != "" {
		y = c.op("Mul", []string{y, c.op("Unsqueeze", []string{q.mask, c.constInt64s("axes", []int{1}, []int64{2})}, "")}, "")
	}
	res := c.finish(y, false, k)
	res.mask = q.mask
	return res, nil
}
