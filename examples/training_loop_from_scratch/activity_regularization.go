package main

import (
	"context"
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// ActivityRegularizationLayer adds 1e-2 times the sum of its inputs to the
// losses of the step that calls it (Keras' self.add_loss) and returns its
// inputs unchanged.
type ActivityRegularizationLayer struct {
	layers.Base
}

// NewActivityRegularizationLayer is ActivityRegularizationLayer().
func NewActivityRegularizationLayer() *ActivityRegularizationLayer {
	return &ActivityRegularizationLayer{Base: layers.NewBase("ActivityRegularizationLayer")}
}

// Call implements layers.Layer.
func (l *ActivityRegularizationLayer) Call(inputs []ops.Tensor, _ bool) ops.Tensor {
	ops.AddLoss(ops.Scale(ops.Sum(inputs[0], false), 1e-2))
	return inputs[0]
}

// regularizedStep builds the guide's model with the activity
// regularization layer and its train step, which adds model.losses to the
// loss. The guide stops at defining the step; here it also runs for one
// pass (or -max-steps batches), logging as the loops above do.
func regularizedStep(ctx context.Context, trainDataset *datasets.Dataset, lossFn losses.Loss,
	optimizer optimizers.Optimizer, trainAccMetric metrics.Metric) error {
	inputs := layers.Input([]int{784}, layers.WithName("digits"))
	x := layers.Apply(layers.NewDense(64, layers.WithActivation("relu")), inputs)
	// Insert activity regularization as a layer.
	x = layers.Apply(NewActivityRegularizationLayer(), x)
	x = layers.Apply(layers.NewDense(64, layers.WithActivation("relu")), x)
	outputs := layers.Apply(layers.NewDense(10, layers.WithName("predictions")), x)

	model, err := keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
	if err != nil {
		return err
	}

	// Here's what our training step should look like now.
	trainStep := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		x, y := in[0], in[1]
		tape := keras.NewGradientTape()
		logits := model.Forward(x, true)
		lossValue := lossFn.Call(y, logits)
		// Add any extra losses created during the forward pass.
		for _, l := range model.Losses(x.Trace()) {
			lossValue = ops.Add(lossValue, l)
		}
		grads, err := tape.Gradient(lossValue, model.TrainableVariables())
		if err != nil {
			return nil, err
		}
		if err := optimizer.ApplyGradients(grads, model.TrainableVariables()); err != nil {
			return nil, err
		}
		trainAccMetric.UpdateState(y, logits)
		return []ops.Tensor{lossValue}, nil
	})

	fmt.Printf("\nActivity regularization: one epoch\n")
	step := 0
	for batch := range trainDataset.All(ctx) {
		out, err := trainStep.Call(batch[0], batch[1])
		if err != nil {
			return err
		}
		if step%100 == 0 {
			fmt.Printf("Training loss (for 1 batch) at step %d: %.4f\n", step, out[0].Float32())
		}
		if step++; enough(step) {
			break
		}
	}
	if err := trainDataset.Err(); err != nil {
		return err
	}
	fmt.Printf("Training acc over epoch: %.4f\n", trainAccMetric.Result())
	trainAccMetric.ResetState()
	return nil
}
