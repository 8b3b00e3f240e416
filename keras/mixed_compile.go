package keras

import (
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// autoLossScale wraps opt in an optimizers.LossScaleOptimizer when the
// model computes in float16, as Keras' compile does (auto_scale_loss)
// under "mixed_float16": the global policy is mixed_float16, or a layer
// of the model has it. An optimizer already wrapped stays as it is.
func (m *Model) autoLossScale(opt optimizers.Optimizer) optimizers.Optimizer {
	m.lossScaleAuto = false
	if _, ok := opt.(*optimizers.LossScaleOptimizer); ok || opt == nil {
		return opt
	}
	float16 := mixedprecision.GlobalPolicy().Name() == "mixed_float16"
	for _, l := range m.Layers() {
		if pl, ok := l.(policyLayer); ok && pl.DTypePolicy().Name() == "mixed_float16" {
			float16 = true
		}
	}
	if !float16 {
		return opt
	}
	m.lossScaleAuto = true
	return optimizers.NewLossScaleOptimizer(opt)
}

// lossScaler is an optimizer that scales the loss before it is
// differentiated (optimizers.LossScaleOptimizer).
type lossScaler interface {
	ScaleLoss(loss ops.Tensor) ops.Tensor
}

// scaledLoss is the loss the train step differentiates: Keras'
// optimizer.scale_loss(loss). The step reports the unscaled loss.
func scaledLoss(opt optimizers.Optimizer, loss ops.Tensor) ops.Tensor {
	if s, ok := opt.(lossScaler); ok {
		return s.ScaleLoss(loss)
	}
	return loss
}
