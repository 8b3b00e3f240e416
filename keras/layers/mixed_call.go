package layers

import (
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/ops"
)

// Layers whose Keras class keeps its weights float32 under a mixed policy
// (autocast=False: the normalizations compute in float32 and cast only
// their output), and those that do not cast their inputs (integer ids,
// autocast=False).
var (
	mixedKeepWeights = map[string]bool{"BatchNormalization": true, "LayerNormalization": true, "GroupNormalization": true}
	mixedKeepInputs  = map[string]bool{"Embedding": true, "LayerNormalization": true, "GroupNormalization": true}
)

// policyCall calls l as Keras' Layer.__call__ does under its dtype policy:
// a layer computing in bfloat16 or float16 gets its float inputs cast to
// that dtype, reads its weights cast to it (they stay float32) and
// returns its output in it; every value stays in a float32 buffer,
// rounded (ops.CastToBFloat16, ops.CastToFloat16), so GEMMs and
// reductions accumulate in float32 on rounded operands. A layer given
// dtype "float32" under a mixed global policy (the last softmax, as Keras
// advises) computes in float32 on its rounded inputs.
func policyCall(l Layer, args []ops.Tensor, training bool) ops.Tensor {
	pl, ok := l.(interface {
		DTypePolicy() mixedprecision.DTypePolicy
	})
	if !ok || len(args) == 0 {
		return l.Call(args, training)
	}
	dtype := pl.DTypePolicy().ComputeDType()
	if dtype != "bfloat16" && dtype != "float16" {
		return l.Call(args, training)
	}
	class := l.ClassName()
	if class == "InputLayer" {
		return l.Call(args, training)
	}
	if !mixedKeepInputs[class] {
		cast := make([]ops.Tensor, len(args))
		for i, a := range args {
			cast[i] = ops.CastToComputeDType(a, dtype)
			SetMask(cast[i], Mask(a)) // the cast input keeps its timestep mask, as Keras' autocast keeps _keras_mask
		}
		args = cast
	}
	readAs := dtype
	if mixedKeepWeights[class] {
		readAs = "float32"
	}
	restore := args[0].Trace().CastReads(readAs)
	defer restore()
	y := l.Call(args, training)
	out := ops.CastToComputeDType(y, dtype)
	SetMask(out, Mask(y)) // the mask the layer set (Embedding's, an RNN's) survives the cast
	return out
}
