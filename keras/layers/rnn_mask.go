package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// maskKey is the trace attribute under which the mask of a tensor is kept.
type maskKey struct{ t ops.Tensor }

// SetMask attaches a timestep mask to x, as Keras' _keras_mask: a
// (batch, timesteps) tensor of 1 (a step to compute) and 0 (a step to
// skip). Embedding(mask_zero) and Masking set it; the recurrent layers,
// Bidirectional and TimeDistributed read it from their input with [Mask].
// The mask travels with the tensor itself; a layer called between them
// carries it on as Keras' compute_mask does ([MaskRuleOf]: Dense,
// Dropout, the normalizations, Add, Concatenate, ...), others drop it.
func SetMask(x, mask ops.Tensor) {
	if x.IsNone() || mask.IsNone() {
		return
	}
	s, ms := x.Shape(), mask.Shape()
	if len(s) < 2 || len(ms) != 2 || ms[0] != s[0] || ms[1] != s[1] {
		panic(&ops.Error{Op: "SetMask", Msg: fmt.Sprintf("a mask of shape %v does not fit a tensor of shape %v (want (batch, timesteps))", ms, s)})
	}
	x.Trace().SetAttr(maskKey{x}, mask)
}

// Mask returns the timestep mask attached to x by [SetMask], or the none
// tensor.
func Mask(x ops.Tensor) ops.Tensor {
	if x.IsNone() || x.Trace() == nil {
		return ops.Tensor{}
	}
	m, _ := x.Trace().Attr(maskKey{x}).(ops.Tensor)
	return m
}

// notEqualMask is 1 where any entry of x along axes after the first two
// differs from v (or, for a rank-2 x, where the entry differs), else 0:
// Keras' any(x != v, axis=-1). It has no gradient path worth following:
// Sign's gradient is zero.
func notEqualMask(x ops.Tensor, v float32) ops.Tensor {
	d := ops.Sign(ops.Abs(ops.AddScalar(x, -v)))
	for d.Rank() > 2 {
		d = ops.Max(d, false, d.Rank()-1)
	}
	return d
}
