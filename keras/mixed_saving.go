package keras

import "github.com/gokeras/gokeras/keras/optimizers"

// compiledOptimizer is the optimizer a compile config records: a
// LossScaleOptimizer's inner optimizer, as Keras 3 records the optimizer
// given to compile (Compile wraps it again under mixed_float16 when the
// model is loaded).
func compiledOptimizer(opt optimizers.Optimizer) optimizers.Optimizer {
	if l, ok := opt.(*optimizers.LossScaleOptimizer); ok && l.Err() == nil {
		return l.InnerOptimizer()
	}
	return opt
}

// lossScaled reports whether the optimizer is a LossScaleOptimizer, whose
// state gokeras does not yet write in Keras 3's layout (optimizer/vars:
// its iteration, learning_rate, step_counter and dynamic_scale, then the
// inner optimizer's variables; optimizer/inner_optimizer/vars: the inner
// optimizer's again): a model saved with one keeps its weights and
// compile config, not the optimizer's state.
func lossScaled(opt optimizers.Optimizer) bool {
	_, ok := opt.(*optimizers.LossScaleOptimizer)
	return ok
}
