package onnx

import (
	"github.com/gokeras/gokeras/keras/layers"
)

// carryMask gives v, the converted output of layer l's call k, the
// timestep mask gokeras gives that layer's output when the layer sets
// none itself (layers.MaskRuleOf, Keras' compute_mask): its one input's
// mask through Dense, Dropout, the normalizations and activations; the OR
// of its inputs' masks through Add and the other merges when every input
// has one; through Concatenate the masks concatenated along the steps or
// ORed along the features, an unmasked input counting as all kept.
func (c *converter) carryMask(l layers.Layer, k *call, v *val) {
	if v.mask != "" || len(v.shape) < 2 {
		return
	}
	anyMask := false
	for _, x := range k.in {
		anyMask = anyMask || x.mask != ""
	}
	if !anyMask {
		return
	}
	var m string
	switch layers.MaskRuleOf(l.ClassName()) {
	case layers.MaskPassThrough:
		if len(k.in) != 1 || len(k.in[0].shape) < 2 || k.in[0].shape[1] != v.shape[1] {
			return
		}
		m = k.in[0].mask
	case layers.MaskMergeAny:
		ms := make([]string, len(k.in))
		for i, x := range k.in {
			if x.mask == "" || len(x.shape) < 2 || x.shape[1] != v.shape[1] {
				return
			}
			ms[i] = x.mask
		}
		m = ms[0]
		if len(ms) > 1 {
			m = c.op("Max", ms, "")
		}
	case layers.MaskConcatenate:
		axis, err := cfgInt(k.cfg, "axis", -1)
		if err != nil {
			return
		}
		concat, or := layers.ConcatenateMaskAxis(axis, len(v.shape))
		if !concat && !or {
			return
		}
		ms := make([]string, len(k.in))
		for i, x := range k.in {
			ms[i] = x.mask
			if ms[i] == "" {
				// All steps kept: ones of x's (batch, steps).
				shape := c.op("Shape", []string{c.keras(x)}, "")
				bt := c.op("Slice", []string{shape, c.constInt64s("start0", []int{1}, []int64{0}), c.constInt64s("end2", []int{1}, []int64{2})}, "")
				ms[i] = c.op("Expand", []string{c.scalar("one", 1), bt}, "")
			}
		}
		switch {
		case len(ms) == 1:
			m = ms[0]
		case concat:
			m = c.op("Concat", ms, "", attrInt("axis", 1))
		default:
			m = c.op("Max", ms, "")
		}
	default:
		return
	}
	v.mask = m
}
