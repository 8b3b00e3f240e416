package keras

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// gradientApplier is implemented by strategies that keep weights and
// optimizer state sharded over their devices (distribute/distribution's
// ModelParallel and DataParallel): the default train step hands them the
// gradients and the model's optimizer instead of calling its
// ApplyGradients, which would make full-size slots on every device. keras
// does not import them; the interface is the whole contract.
type gradientApplier interface {
	ApplyGradients(opt optimizers.Optimizer, grads []ops.Tensor, vars []*ops.Variable) error
}

// applyGradients is the default train step's update: the strategy's
// sharded one where it has it, else the optimizer's.
func (m *Model) applyGradients(grads []ops.Tensor, vars []*ops.Variable) error {
	if ga, ok := m.strategy.(gradientApplier); ok {
		return ga.ApplyGradients(m.optimizer, grads, vars)
	}
	return m.optimizer.ApplyGradients(grads, vars)
}

// setGradientApplier marks a train step's trace under a strategy with a
// sharded update, so that a custom step's optimizer.ApplyGradients
// updates the shards, as Model.ApplyGradients does
// (ops.GradientApplier): Keras' train_step calls
// self.optimizer.apply_gradients, and ports keep that line.
func (m *Model) setGradientApplier(tr *ops.Trace) {
	ga, ok := m.strategy.(gradientApplier)
	if !ok {
		return
	}
	tr.SetAttr(ops.GradientApplierKey{}, ops.GradientApplier(func(opt any, grads []ops.Tensor, vars []*ops.Variable) error {
		o, ok := opt.(optimizers.Optimizer)
		if !ok {
			return fmt.Errorf("keras: ApplyGradients: %T is not an optimizer", opt)
		}
		return ga.ApplyGradients(o, grads, vars)
	}))
}

// ApplyGradients applies grads to vars with the model's optimizer as its
// default train step does, for a custom train step ([TrainStepper]):
// m.Optimizer().ApplyGradients(grads, vars) under most strategies, and
// the sharded update of a distribution that keeps the weights split over
// its devices (distribute/distribution's ModelParallel), whose weights
// have no whole copy for an optimizer to update in place.
func (m *Model) ApplyGradients(grads []ops.Tensor, vars []*ops.Variable) error {
	if err := m.usable("ApplyGradients"); err != nil {
		return err
	}
	if m.optimizer == nil {
		return fmt.Errorf("keras: ApplyGradients: the model has no optimizer (compile it first)")
	}
	return m.applyGradients(grads, vars)
}
