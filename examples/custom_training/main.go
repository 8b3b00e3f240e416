// Command custom_training is TensorFlow's "Custom training with
// tf.distribute.Strategy" tutorial, ported line by line: a CNN trained on
// Fashion-MNIST by a hand-written train step (GradientTape, per-example
// losses averaged over the global batch, the optimizer applying summed
// gradients) run on every replica of a MirroredStrategy, with checkpoints;
// at the end the latest checkpoint is restored into a new model without the
// strategy and evaluated.
//
//	go run ./examples/custom_training -replicas 2 -epochs 10
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

func main() {
	replicas := flag.Int("replicas", 1, "replicas of MirroredStrategy (logical CPUs when there is no GPU)")
	epochs := flag.Int("epochs", 10, "training epochs")
	limit := flag.Int("limit", 0, "use only the first N training examples (0: all)")
	seed := flag.Int64("seed", 0, "random seed for weights and shuffling")
	dataset := flag.String("dataset", "fashion_mnist", "fashion_mnist or mnist")
	dataDir := flag.String("data", "", "directory holding the dataset files")
	ckptDir := flag.String("checkpoint-dir", "", "where checkpoints go (default: a temporary directory)")
	verbose := flag.Bool("verbose", false, "print the process's peak RSS before the test accuracy")
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "replicas"), cli.NonNegative("limit"), cli.OutputDir("checkpoint-dir"), cli.OneOfStrings("dataset", cli.Datasets...))
	if err := run(*replicas, *epochs, *limit, *seed, *dataset, *dataDir, *ckptDir, *verbose); err != nil {
		log.Fatal(err)
	}
}

func createModel() (*keras.Model, error) {
	regularizer := layers.L2(1e-5)
	return keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithKernelRegularizer(regularizer)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu"), layers.WithKernelRegularizer(regularizer)),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(64, layers.WithActivation("relu"), layers.WithKernelRegularizer(regularizer)),
		layers.NewDense(10, layers.WithKernelRegularizer(regularizer)),
	)
}

func run(replicas, epochs, limit int, seed int64, dataset, dataDir, ckptDir string, verbose bool) error {
	layers.SetRandomSeed(uint64(seed))
	trainImages, trainLabels, testImages, testLabels, err := exampledata.Load(dataset, dataDir, limit)
	if err != nil {
		return err
	}
	if err := distribute.SetLogicalCPUs(replicas); err != nil {
		return err
	}
	strategy, err := distribute.NewMirroredStrategy()
	if err != nil {
		return err
	}
	fmt.Printf("Number of devices: %d\n", strategy.NumReplicasInSync())

	bufferSize := trainImages.Shape()[0]
	const batchSizePerReplica = 64
	globalBatchSize := batchSizePerReplica * strategy.NumReplicasInSync()
	trainDS, err := datasets.FromTensorSlices(trainImages, trainLabels)
	if err != nil {
		return err
	}
	trainDataset := trainDS.Shuffle(bufferSize, seed).Batch(globalBatchSize, false)
	testDS, err := datasets.FromTensorSlices(testImages, testLabels)
	if err != nil {
		return err
	}
	testDataset := testDS.Batch(globalBatchSize, false)
	trainDistDataset := strategy.ExperimentalDistributeDataset(trainDataset)
	testDistDataset := strategy.ExperimentalDistributeDataset(testDataset)

	if ckptDir == "" {
		if ckptDir, err = os.MkdirTemp("", "training_checkpoints"); err != nil {
			return err
		}
		defer os.RemoveAll(ckptDir)
	}
	checkpointPrefix := filepath.Join(ckptDir, "ckpt")

	exit := strategy.Scope()
	lossObject := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true), losses.Reduction(losses.ReductionNone))
	computeLoss := func(labels, predictions ops.Tensor, modelLosses []ops.Tensor) ops.Tensor {
		perExampleLoss := lossObject.Call(labels, predictions)
		loss := distribute.ComputeAverageLoss(perExampleLoss, globalBatchSize)
		for _, l := range modelLosses {
			loss = ops.Add(loss, distribute.ScaleRegularizationLoss(l))
		}
		return loss
	}
	testLoss := metrics.NewMean(metrics.Name("test_loss"))
	trainAccuracy := metrics.NewSparseCategoricalAccuracy(metrics.Name("train_accuracy"))
	testAccuracy := metrics.NewSparseCategoricalAccuracy(metrics.Name("test_accuracy"))
	model, err := createModel()
	if err != nil {
		exit()
		return err
	}
	optimizer := optimizers.NewAdam(optimizers.LearningRate(0.001))
	checkpoint := keras.NewCheckpoint(model, optimizer)
	exit()

	trainStep := keras.NewFunction(func(inputs []ops.Tensor) ([]ops.Tensor, error) {
		images, labels := inputs[0], inputs[1]
		tape := keras.NewGradientTape()
		predictions := model.Forward(images, true)
		loss := computeLoss(labels, predictions, model.RegularizationLosses(images.Trace()))
		gradients, err := tape.Gradient(loss, model.TrainableVariables())
		if err != nil {
			return nil, err
		}
		if err := optimizer.ApplyGradients(gradients, model.TrainableVariables()); err != nil {
			return nil, err
		}
		trainAccuracy.UpdateState(labels, predictions)
		return []ops.Tensor{loss}, nil
	})
	testStep := keras.NewFunction(func(inputs []ops.Tensor) ([]ops.Tensor, error) {
		images, labels := inputs[0], inputs[1]
		predictions := model.Forward(images, false)
		tLoss := lossObject.Call(labels, predictions)
		testLoss.UpdateState(tLoss)
		testAccuracy.UpdateState(labels, predictions)
		return nil, nil
	})
	distributedTrainStep := func(x *distribute.DistributedValues) (float64, error) {
		perReplicaLosses, err := strategy.Run(trainStep, x)
		if err != nil {
			return 0, err
		}
		loss, err := strategy.Reduce(distribute.Sum, perReplicaLosses[0], distribute.AxisNone)
		return float64(loss.Data[0]), err
	}
	distributedTestStep := func(x *distribute.DistributedValues) error {
		_, err := strategy.Run(testStep, x)
		return err
	}

	ctx := context.Background()
	for epoch := 0; epoch < epochs; epoch++ {
		// Train loop.
		totalLoss, numBatches := 0.0, 0
		it := trainDistDataset.Iterate(ctx)
		for x, ok := it.Next(); ok; x, ok = it.Next() {
			l, err := distributedTrainStep(x)
			if err != nil {
				it.Close()
				return err
			}
			totalLoss += l
			numBatches++
		}
		it.Close()
		if err := it.Err(); err != nil {
			return err
		}
		trainLoss := totalLoss / float64(numBatches)

		// Test loop.
		it = testDistDataset.Iterate(ctx)
		for x, ok := it.Next(); ok; x, ok = it.Next() {
			if err := distributedTestStep(x); err != nil {
				it.Close()
				return err
			}
		}
		it.Close()
		if err := it.Err(); err != nil {
			return err
		}
		if epoch%2 == 0 {
			if _, err := checkpoint.Save(checkpointPrefix); err != nil {
				return err
			}
		}
		fmt.Printf("Epoch %d, Loss: %.4f, Accuracy: %.2f, Test Loss: %.4f, Test Accuracy: %.2f\n",
			epoch+1, trainLoss, trainAccuracy.Result()*100, testLoss.Result(), testAccuracy.Result()*100)
		testLoss.ResetState()
		trainAccuracy.ResetState()
		testAccuracy.ResetState()
	}

	// Restore the latest checkpoint and test, without the strategy.
	evalAccuracy := metrics.NewSparseCategoricalAccuracy(metrics.Name("eval_accuracy"))
	newModel, err := createModel()
	if err != nil {
		return err
	}
	newOptimizer := optimizers.NewAdam()
	evalStep := keras.NewFunction(func(inputs []ops.Tensor) ([]ops.Tensor, error) {
		predictions := newModel.Forward(inputs[0], false)
		evalAccuracy.UpdateState(inputs[1], predictions)
		return nil, nil
	})
	// Build the new model's weights before restoring into them.
	if err := newModel.Build(28, 28, 1); err != nil {
		return err
	}
	latest := keras.LatestCheckpoint(checkpointPrefix)
	if latest == "" {
		return fmt.Errorf("no checkpoint in %s", ckptDir)
	}
	if err := keras.NewCheckpoint(newModel, newOptimizer).Restore(latest); err != nil {
		return err
	}
	evalDS := testDS.Batch(globalBatchSize, false)
	it := evalDS.Iterate(ctx)
	defer it.Close()
	for el, ok := it.Next(); ok; el, ok = it.Next() {
		if _, err := evalStep.Call(el[0], el[1]); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	fmt.Printf("Accuracy after restoring the saved model without strategy: %.2f\n", evalAccuracy.Result()*100)
	if verbose {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("test_accuracy: %.4f\n", evalAccuracy.Result())
	return nil
}
