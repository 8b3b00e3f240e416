// Package optimizers holds Keras' optimizers (SGD, Adam, RMSprop, AdamW,
// Adagrad, Adamax, Nadam, Adadelta, Lion, Ftrl) and learning rate
// schedules, with Keras' names, defaults and update formulas, computed in
// float32 with Keras' float32 roundings of the hyperparameters.
//
// # Overview
//
// An optimizer is made with functional options shared by all optimizers:
//
//	opt := optimizers.NewAdam(optimizers.LearningRate(1e-3), optimizers.ClipNorm(1))
//
// or by name with defaults through [Get]. Options an optimizer does not take
// and invalid values are reported by the Err method and by every
// ApplyGradients and Apply, so that constructors stay usable in expressions.
//
// A traced train step calls [Optimizer.ApplyGradients] with the symbolic
// gradients. That creates the slot variables (moments, velocities) right
// away, at trace time, and registers a hook on the gradients' trace: after
// each replay it copies the gradients, sums them across replicas
// (ReplicaContext.AllReduceSum, so every replica sees the same bits), clips
// the sum (clipnorm per tensor, global_clipnorm, or clipvalue: after
// aggregation, as Keras does), applies decoupled weight decay, runs the
// update rule on this replica's copy of each variable and slot, and counts
// the step on this replica. Every replica thus keeps identical copies
// without sharing any mutable state but the all-reduce. [Optimizer.Apply]
// does the same at once from concrete gradients, for eager code and tests.
//
// Variables whose gradient is none are skipped with a logged warning; if no
// variable has a gradient it is an error, as in Keras.
//
// The step count is an int64 per replica. [Optimizer.Variables] exposes it
// as the float32 variable "<name>/iterations" (exact up to 2^24 steps) next
// to the slots ("<name>/<slot>/<variable path with / as _>") for
// checkpointing; assigning the counter variable (a restore) is picked up by
// the next update.
//
// Schedules ([ExponentialDecay], [PiecewiseConstantDecay], [CosineDecay],
// [CosineDecayWithWarmup], [CosineDecayRestarts], [PolynomialDecay],
// [InverseTimeDecay]) are evaluated at the number of updates done
// before each update.
package optimizers
