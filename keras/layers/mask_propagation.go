package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// MaskRule is how a layer class's output carries its inputs' timestep
// masks when the layer itself sets none: Keras' Layer.__call__ asks the
// layer's compute_mask, which returns the input's mask for a layer with
// supports_masking and Keras' default compute_mask, ORs the masks for a
// merge layer and concatenates or ORs them for Concatenate; every other
// layer (Conv1D, Reshape, Flatten, pooling, Lambda, ...) drops it.
type MaskRule int

const (
	// MaskDropped: the output carries no mask (Keras' default for a
	// layer without supports_masking).
	MaskDropped MaskRule = iota
	// MaskPassThrough: the output carries its one input's mask.
	MaskPassThrough
	// MaskMergeAny: Add, Subtract, Multiply, Average, Maximum, Minimum:
	// with every input masked, the output's mask is their OR (a step is
	// kept where any input keeps it); with any input unmasked, none.
	MaskMergeAny
	// MaskConcatenate: Concatenate: an unmasked input counts as all
	// steps kept; along the timestep axis the masks are concatenated,
	// along the feature axis ORed.
	MaskConcatenate
)

// maskRules are the classes Keras 3.15.1 gives supports_masking with its
// default compute_mask, and the merge layers, as its layers report them
// (each class called on Embedding(mask_zero=True)'s output). Softmax is
// left out: it reads the mask as logits' mask, which gokeras' Softmax does
// not. Layers that set their own mask (Embedding, Masking, the recurrent
// layers, Bidirectional, TimeDistributed, the attention layers) are not
// listed: what they set wins.
var maskRules = map[string]MaskRule{
	"Dense": MaskPassThrough, "Activation": MaskPassThrough, "Identity": MaskPassThrough,
	"Dropout": MaskPassThrough, "SpatialDropout1D": MaskPassThrough, "SpatialDropout2D": MaskPassThrough,
	"SpatialDropout3D": MaskPassThrough, "GaussianNoise": MaskPassThrough, "GaussianDropout": MaskPassThrough,
	"AlphaDropout": MaskPassThrough, "ActivityRegularization": MaskPassThrough, "Rescaling": MaskPassThrough,
	"BatchNormalization": MaskPassThrough, "LayerNormalization": MaskPassThrough, "GroupNormalization": MaskPassThrough,
	"UnitNormalization": MaskPassThrough, "Normalization": MaskPassThrough,
	"ReLU": MaskPassThrough, "LeakyReLU": MaskPassThrough, "ELU": MaskPassThrough, "PReLU": MaskPassThrough,
	"Add": MaskMergeAny, "Subtract": MaskMergeAny, "Multiply": MaskMergeAny, "Average": MaskMergeAny,
	"Maximum": MaskMergeAny, "Minimum": MaskMergeAny,
	"Concatenate": MaskConcatenate,
}

// MaskRuleOf returns how a layer of class class carries masks (see
// [MaskRule]); the ONNX exporter follows the same rules.
func MaskRuleOf(class string) MaskRule { return maskRules[class] }

// ConcatenateMaskAxis says what Concatenate along axis (negative counts
// from the end) of inputs of rank rank does with their (batch, steps)
// masks: concatenate them (the steps axis, 1), OR them (the last axis of
// a rank-3 input, Keras' any over the features), or drop them (any other
// axis: Keras' result would not be a (batch, steps) mask).
func ConcatenateMaskAxis(axis, rank int) (concat, or bool) {
	if axis < 0 {
		axis += rank
	}
	switch {
	case axis == 1:
		return true, false
	case rank == 3 && axis == 2:
		return false, true
	}
	return false, false
}

// propagateMask attaches to y the mask Keras' compute_mask gives l's
// output (see [MaskRule]) when l set none itself.
func propagateMask(l Layer, in []ops.Tensor, y ops.Tensor) {
	if y.IsNone() || len(in) == 0 || !Mask(y).IsNone() {
		return
	}
	masks := make([]ops.Tensor, len(in))
	anyMask := false
	for i, x := range in {
		masks[i] = Mask(x)
		anyMask = anyMask || !masks[i].IsNone()
	}
	if !anyMask || y.Rank() < 2 {
		return
	}
	var m ops.Tensor
	switch MaskRuleOf(l.ClassName()) {
	case MaskPassThrough:
		if len(in) == 1 {
			m = masks[0]
		}
	case MaskMergeAny:
		m = masks[0]
		for _, mi := range masks[1:] {
			if mi.IsNone() || m.IsNone() {
				return
			}
			m = ops.Maximum(m, mi)
		}
	case MaskConcatenate:
		axis := -1
		switch a := l.GetConfig()["axis"].(type) {
		case int:
			axis = a
		case float64:
			axis = int(a)
		}
		concat, or := ConcatenateMaskAxis(axis, y.Rank())
		if !concat && !or {
			return
		}
		for i, mi := range masks {
			if mi.IsNone() {
				s := in[i].Shape()
				mi = ops.OnesLike(ops.Slice(in[i], make([]int, len(s)), append([]int{-1, s[1]}, ones(len(s)-2)...)))
				for mi.Rank() > 2 {
					mi = ops.Max(mi, false, mi.Rank()-1)
				}
			}
			masks[i] = mi
		}
		if concat {
			m = ops.Concat(1, masks...)
		} else {
			m = masks[0]
			for _, mi := range masks[1:] {
				m = ops.Maximum(m, mi)
			}
		}
	}
	if m.IsNone() {
		return
	}
	if s, ms := y.Shape(), m.Shape(); ms[0] != s[0] || ms[1] != s[1] {
		return // the layer changed the steps (a Dense on (batch, features) under a 2-D mask): Keras' mask would not fit either
	}
	SetMask(y, m)
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
