// Package losses holds the Keras losses of gokeras: objects that turn labels
// and predictions, symbolic tensors of a traced step, into a loss tensor.
//
// # Overview
//
// A [Loss] has Keras' two levels: [Loss.PerExample] (Keras' call) returns
// the unreduced losses, one per example; [Loss.Call] reduces them as the
// loss's [ReductionKind] says, by default [ReductionSumOverBatchSize] (the
// mean). Losses are configured with functional options ([FromLogits],
// [LabelSmoothing], [Axis], [Reduction], [Name]) and can be looked up by
// their Keras names with [Get]:
//
//	loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))
//	l := loss.Call(labels, logits) // a scalar tensor
//
// Labels are float32 like every value; sparse labels hold class ids.
//
// # Numerics
//
// As in Keras, crossentropies on probabilities look through the activation
// that produced them: predictions computed as ops.Softmax(x) or
// ops.Sigmoid(x) are scored from the logits x, which stays exact when the
// probabilities round to 0 or 1. Other probabilities are clipped to
// [1e-7, 1-1e-7].
//
// # Errors
//
// Misuse while building a graph, such as labels whose shape does not fit
// the predictions, panics with an [*ops.Error] naming the loss and both
// shapes; the public boundaries of package keras recover it into an error.
// Constructors panic the same way on options the loss does not take or
// invalid values.
//
// # Distribution
//
// [ComputeAverageLoss] and [ScaleRegularizationLoss] scale a replica's loss
// so that summing gradients over replicas gives the gradient of the global
// mean, as tf.nn.compute_average_loss and tf.nn.scale_regularization_loss.
package losses
