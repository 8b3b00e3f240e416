package keras

import "github.com/gokeras/gokeras/keras/optimizers"

// compiledOptimizer is the optimizer a compile config records: a
// LossScaleOptimizer's inner optimizer, as Keras 3 records the optimizer
// given to compile (Compile wraps it again under mixed_float16 when the
// model is loaded). It is also the optimizer whose iterations, learning
// rate and slots the saved files hold.
func compiledOptimizer(opt optimizers.Optimizer) optimizers.Optimizer {
	if l, ok := opt.(*optimizers.LossScaleOptimizer); ok && l.Err() == nil {
		return l.InnerOptimizer()
	}
	return opt
}

// lossScaleEntries are a LossScaleOptimizer's groups in a weights file or
// checkpoint, in Keras 3's layout (as a file Keras saves after fit under
// mixed_float16 holds them): "optimizer/vars" with the wrapper's own
// iteration and learning rate (Keras keeps them at 0: the inner optimizer
// counts the steps), its step_counter (int64) and dynamic_scale, then the
// inner optimizer's variables inner (its iteration, learning rate and
// slots); and "optimizer/inner_optimizer/vars" with the inner optimizer's
// variables again. Loading reads both; the inner group's values are the
// ones assigned last (Keras' order), equal to the first copy in files
// either program wrote.
func lossScaleEntries(lso *optimizers.LossScaleOptimizer, inner []structVar) []structEntry {
	vs := lso.Variables() // the inner optimizer's, then step_counter and dynamic_scale
	counter, scale := vs[len(vs)-2], vs[len(vs)-1]
	own := []structVar{
		{kind: kindZeroInt},
		{kind: kindZeroFloat},
		{kind: kindIntVariable, v: counter, shape: counter.Shape()},
		{v: scale, shape: scale.Shape()},
	}
	name := ""
	if in := lso.InnerOptimizer(); in != nil {
		name = in.Name()
	}
	return []structEntry{
		{path: "optimizer", name: lso.Name(), vars: append(own, inner...), optimizer: true},
		{path: "optimizer/inner_optimizer", name: name, vars: inner, optimizer: true},
	}
}

// optimizerFileVars is how many "optimizer/vars" datasets a file of the
// optimizer holds at most with its current slots: its variables and the
// learning rate, plus, for a LossScaleOptimizer, its own iteration and
// learning rate (its Variables already count step_counter and
// dynamic_scale). A file with more holds slots the optimizer has not made
// yet (it has not trained).
func optimizerFileVars(opt optimizers.Optimizer) int {
	n := len(opt.Variables()) + 1
	if _, ok := opt.(*optimizers.LossScaleOptimizer); ok {
		n += 2
	}
	return n
}
