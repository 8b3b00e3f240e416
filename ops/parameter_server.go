package ops

// ParameterServerContext is the ReplicaContext of a step that a
// ParameterServerStrategy worker runs. Under that strategy the variables
// live on parameter servers: an optimizer does not update the worker's
// copies in place (nor all-reduce with other workers, which run
// asynchronously) but sends its gradients to the servers that own the
// variables. Each server applies its own instance of the optimizer, in the
// order pushes arrive, and answers with the fresh values, which the worker
// writes into its copies before the step ends (TensorFlow's
// ParameterServerStrategy places the update ops on the parameter servers
// the same way).
//
// Optimizers look for this interface on the context their hook gets; a
// context without it is a synchronous replica and they update in place.
type ParameterServerContext interface {
	ReplicaContext
	// PushGradients sends grads[i], the gradient of vars[i] summed over this
	// worker's replicas, to the parameter server owning vars[i]. optimizer
	// is the optimizer that was asked to apply them (a keras/optimizers
	// Optimizer); the strategy describes it to the servers, which build
	// their own from its config the first time. When PushGradients returns
	// nil, every vars[i] holds the value the server had right after
	// applying this push, in this replica's copy. grads may be modified.
	PushGradients(optimizer any, vars []*Variable, grads [][]float32) error
}
