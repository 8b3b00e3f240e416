package ops

// GradientApplierKey is the trace attribute under which the executor of a
// step whose strategy keeps the weights split over its devices (Keras 3's
// ModelParallel and DataParallel, distribute/distribution) stores the
// GradientApplier of that step.
type GradientApplierKey struct{}

// GradientApplier applies grads to vars with optimizer (a
// keras/optimizers Optimizer) as the step's strategy updates its weights:
// each device updates its shards with its own instance of the optimizer.
// An optimizer asked to apply gradients of such a step hands them to it,
// so a custom train step's optimizer.ApplyGradients(grads, vars) trains
// the shards, as Keras' self.optimizer.apply_gradients does under a
// distribution, instead of updating whole copies that the strategy does
// not keep.
type GradientApplier func(optimizer any, grads []Tensor, vars []*Variable) error

// TraceGradientApplier returns the GradientApplier stored on the trace of
// the first gradient that is not None, or nil.
func TraceGradientApplier(grads []Tensor) GradientApplier {
	for _, g := range grads {
		if g.IsNone() {
			continue
		}
		f, _ := g.Trace().Attr(GradientApplierKey{}).(GradientApplier)
		return f
	}
	return nil
}
