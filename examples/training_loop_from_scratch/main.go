// Command training_loop_from_scratch is keras.io's "Writing a training
// loop from scratch" (the TensorFlow guide), ported line by line: an MNIST
// classifier (Dense 64 relu, Dense 64 relu, Dense 10) trained by a loop of
// our own, first eagerly (the model called on each batch inside a
// GradientTape, as TensorFlow runs by default), then with metrics, then
// with the train and test steps compiled by keras.NewFunction (the
// guide's @tf.function), then the step of a model whose layer adds an
// activity regularization loss (model.losses), and last the guide's
// end-to-end DCGAN, 12 steps of it as in the guide, writing
// generated_img_0.png to -save-dir (gan_images/ unless told otherwise).
//
//	go run ./examples/training_loop_from_scratch
//
// MNIST is read from Keras' cache (~/.keras/datasets or $KERAS_HOME), the
// folders listed in $GOKERAS_DATASETS, or -data.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/keras/utils"
	"github.com/gokeras/gokeras/ops"
)

var (
	dataDir  = flag.String("data", "", "folder holding MNIST (default: Keras' cache, then $GOKERAS_DATASETS)")
	seed     = flag.Int64("seed", 0, "random seed of the weights and the shuffling")
	maxSteps = flag.Int("max-steps", 0, "stop each pass over a dataset after this many batches (0: the whole pass; for quick runs)")
	saveDir  = flag.String("save-dir", "gan_images", "folder the GAN's generated images go to, made if missing (the guide's save_dir; empty: not saved)")
	ganSteps = flag.Int("gan-steps", 12, "GAN training steps (the guide stops after 12; at most 12)")
	verbose  = flag.Bool("verbose", false, "print the process's peak RSS at the end")
)

func main() {
	flag.Parse()
	cli.MustCheck(cli.NonNegative("max-steps"), cli.Positive("gan-steps"), cli.OutputDir("save-dir"))
	if err := run(); err != nil {
		log.Fatal(err)
	}
	if *verbose {
		cli.PrintPeakRSS(os.Stdout)
	}
}

// enough reports whether a pass has run the batches -max-steps allows.
func enough(step int) bool { return *maxSteps > 0 && step >= *maxSteps }

func getModel() (*keras.Model, error) {
	inputs := layers.Input([]int{784}, layers.WithName("digits"))
	x1 := layers.Apply(layers.NewDense(64, layers.WithActivation("relu")), inputs)
	x2 := layers.Apply(layers.NewDense(64, layers.WithActivation("relu")), x1)
	outputs := layers.Apply(layers.NewDense(10, layers.WithName("predictions")), x2)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
}

func run() error {
	layers.SetRandomSeed(uint64(*seed))
	ctx := context.Background()

	// A first end-to-end example.
	model, err := getModel()
	if err != nil {
		return err
	}

	// Instantiate an optimizer.
	optimizer := optimizers.NewAdam(optimizers.LearningRate(1e-3))
	// Instantiate a loss function.
	lossFn := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))

	// Prepare the training dataset.
	const batchSize = 32
	var opts []datasets.LoadOption
	if *dataDir != "" {
		opts = append(opts, datasets.Dir(*dataDir))
	}
	train, test, err := datasets.LoadMNIST(opts...)
	if err != nil {
		return err
	}
	xTrain, err := utils.Reshape(train.X, -1, 784)
	if err != nil {
		return err
	}
	if _, err := utils.Reshape(test.X, -1, 784); err != nil { // x_test, unused by the guide too
		return err
	}
	yTrain := train.Y

	// Reserve 10,000 samples for validation.
	xVal, err := utils.Slice(xTrain, -10000, utils.End)
	if err != nil {
		return err
	}
	yVal, err := utils.Slice(yTrain, -10000, utils.End)
	if err != nil {
		return err
	}
	if xTrain, err = utils.Slice(xTrain, 0, -10000); err != nil {
		return err
	}
	if yTrain, err = utils.Slice(yTrain, 0, -10000); err != nil {
		return err
	}

	// Prepare the training dataset.
	trainDataset, err := datasets.FromTensorSlices(xTrain, yTrain)
	if err != nil {
		return err
	}
	trainDataset = trainDataset.Shuffle(1024, *seed).Batch(batchSize)

	// Prepare the validation dataset.
	valDataset, err := datasets.FromTensorSlices(xVal, yVal)
	if err != nil {
		return err
	}
	valDataset = valDataset.Batch(batchSize)

	epochs := 3
	for epoch := range epochs {
		fmt.Printf("\nStart of epoch %d\n", epoch)

		// Iterate over the batches of the dataset.
		step := 0
		for batch := range trainDataset.All(ctx) {
			xBatchTrain, yBatchTrain := batch[0], ops.ConvertToTensor(batch[1])
			// Open a GradientTape to record the operations run during the
			// forward pass, which enables auto-differentiation.
			tape := keras.NewGradientTape()
			// Run the forward pass of the layer: its operations are
			// recorded on the GradientTape.
			logits, err := model.CallEager(xBatchTrain, true) // Logits for this minibatch
			if err != nil {
				return err
			}
			// Compute the loss value for this minibatch.
			lossValue := lossFn.Call(yBatchTrain, logits)

			// Use the gradient tape to retrieve the gradients of the
			// trainable variables with respect to the loss.
			grads, err := tape.Gradient(lossValue, model.TrainableVariables())
			if err != nil {
				return err
			}
			// Run one step of gradient descent by updating the value of
			// the variables to minimize the loss.
			if err := optimizer.ApplyGradients(grads, model.TrainableVariables()); err != nil {
				return err
			}

			// Log every 100 batches.
			if step%100 == 0 {
				fmt.Printf("Training loss (for 1 batch) at step %d: %.4f\n", step, lossValue.Float32())
				fmt.Printf("Seen so far: %d samples\n", (step+1)*batchSize)
			}
			if step++; enough(step) {
				break
			}
		}
		if err := trainDataset.Err(); err != nil {
			return err
		}
	}

	// Low-level handling of metrics.

	// Get a fresh model.
	if model, err = getModel(); err != nil {
		return err
	}
	// Instantiate an optimizer to train the model.
	optimizer = optimizers.NewAdam(optimizers.LearningRate(1e-3))
	// Instantiate a loss function.
	lossFn = losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))

	// Prepare the metrics.
	trainAccMetric := metrics.NewSparseCategoricalAccuracy()
	valAccMetric := metrics.NewSparseCategoricalAccuracy()

	epochs = 2
	for epoch := range epochs {
		fmt.Printf("\nStart of epoch %d\n", epoch)
		startTime := time.Now()

		// Iterate over the batches of the dataset.
		step := 0
		for batch := range trainDataset.All(ctx) {
			xBatchTrain, yBatchTrain := batch[0], ops.ConvertToTensor(batch[1])
			tape := keras.NewGradientTape()
			logits, err := model.CallEager(xBatchTrain, true)
			if err != nil {
				return err
			}
			lossValue := lossFn.Call(yBatchTrain, logits)
			grads, err := tape.Gradient(lossValue, model.TrainableVariables())
			if err != nil {
				return err
			}
			if err := optimizer.ApplyGradients(grads, model.TrainableVariables()); err != nil {
				return err
			}

			// Update training metric.
			trainAccMetric.UpdateState(yBatchTrain, logits)

			// Log every 100 batches.
			if step%100 == 0 {
				fmt.Printf("Training loss (for 1 batch) at step %d: %.4f\n", step, lossValue.Float32())
				fmt.Printf("Seen so far: %d samples\n", (step+1)*batchSize)
			}
			if step++; enough(step) {
				break
			}
		}
		if err := trainDataset.Err(); err != nil {
			return err
		}

		// Display metrics at the end of each epoch.
		trainAcc := trainAccMetric.Result()
		fmt.Printf("Training acc over epoch: %.4f\n", trainAcc)

		// Reset training metrics at the end of each epoch.
		trainAccMetric.ResetState()

		// Run a validation loop at the end of each epoch.
		step = 0
		for batch := range valDataset.All(ctx) {
			xBatchVal, yBatchVal := batch[0], ops.ConvertToTensor(batch[1])
			valLogits, err := model.CallEager(xBatchVal, false)
			if err != nil {
				return err
			}
			// Update val metrics.
			valAccMetric.UpdateState(yBatchVal, valLogits)
			if step++; enough(step) {
				break
			}
		}
		if err := valDataset.Err(); err != nil {
			return err
		}
		valAcc := valAccMetric.Result()
		valAccMetric.ResetState()
		fmt.Printf("Validation acc: %.4f\n", valAcc)
		fmt.Printf("Time taken: %.2fs\n", time.Since(startTime).Seconds())
	}

	// Speeding-up your training step with keras.NewFunction (tf.function):
	// the step is traced once into a graph and replayed.
	trainStep := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		x, y := in[0], in[1]
		tape := keras.NewGradientTape()
		logits := model.Forward(x, true)
		lossValue := lossFn.Call(y, logits)
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

	// Let's do the same with the evaluation step.
	testStep := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		x, y := in[0], in[1]
		valLogits := model.Forward(x, false)
		valAccMetric.UpdateState(y, valLogits)
		return nil, nil
	})

	// Now, let's re-run our training loop with this compiled training step.
	epochs = 2
	for epoch := range epochs {
		fmt.Printf("\nStart of epoch %d\n", epoch)
		startTime := time.Now()

		// Iterate over the batches of the dataset.
		step := 0
		for batch := range trainDataset.All(ctx) {
			xBatchTrain, yBatchTrain := batch[0], batch[1]
			out, err := trainStep.Call(xBatchTrain, yBatchTrain)
			if err != nil {
				return err
			}
			lossValue := out[0]

			// Log every 100 batches.
			if step%100 == 0 {
				fmt.Printf("Training loss (for 1 batch) at step %d: %.4f\n", step, lossValue.Float32())
				fmt.Printf("Seen so far: %d samples\n", (step+1)*batchSize)
			}
			if step++; enough(step) {
				break
			}
		}
		if err := trainDataset.Err(); err != nil {
			return err
		}

		// Display metrics at the end of each epoch.
		trainAcc := trainAccMetric.Result()
		fmt.Printf("Training acc over epoch: %.4f\n", trainAcc)

		// Reset training metrics at the end of each epoch.
		trainAccMetric.ResetState()

		// Run a validation loop at the end of each epoch.
		step = 0
		for batch := range valDataset.All(ctx) {
			xBatchVal, yBatchVal := batch[0], batch[1]
			if _, err := testStep.Call(xBatchVal, yBatchVal); err != nil {
				return err
			}
			if step++; enough(step) {
				break
			}
		}
		if err := valDataset.Err(); err != nil {
			return err
		}
		valAcc := valAccMetric.Result()
		valAccMetric.ResetState()
		fmt.Printf("Validation acc: %.4f\n", valAcc)
		fmt.Printf("Time taken: %.2fs\n", time.Since(startTime).Seconds())
	}

	// Low-level handling of losses tracked by the model: a layer that
	// creates an activity regularization loss, in a really simple model.
	if err := regularizedStep(ctx, trainDataset, lossFn, optimizer, trainAccMetric); err != nil {
		return err
	}

	// End-to-end example: a GAN training loop from scratch.
	return gan(ctx, train, test, *saveDir)
}
