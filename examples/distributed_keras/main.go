// Command distributed_keras is TensorFlow's "Distributed training with
// Keras" tutorial, ported line by line: a small CNN on MNIST digits trained
// by Fit under a MirroredStrategy, with TensorBoard, checkpoint and
// learning-rate-schedule callbacks and a callback printing the learning
// rate; then the latest checkpoint is loaded and evaluated.
//
//	go run ./examples/distributed_keras -replicas 2 -epochs 12
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func main() {
	replicas := flag.Int("replicas", 1, "replicas of MirroredStrategy (logical CPUs when there is no GPU)")
	epochs := flag.Int("epochs", 12, "training epochs (the tutorial's 12)")
	limit := flag.Int("limit", 0, "use only the first N training examples (0: all)")
	seed := flag.Int64("seed", 0, "random seed for weights and shuffling")
	dataset := flag.String("dataset", "mnist", "mnist or fashion_mnist")
	dataDir := flag.String("data", "", "directory holding the dataset files")
	workDir := flag.String("dir", "", "where logs and checkpoints go (default: a temporary directory)")
	verbose := flag.Int("verbose", keras.VerboseBar, "Fit verbosity, as Keras' verbose: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "replicas"), cli.NonNegative("limit"), cli.OneOf("verbose", 0, 1, 2), cli.OutputDir("dir"), cli.OneOfStrings("dataset", cli.Datasets...))
	if err := run(*replicas, *epochs, *limit, *seed, *dataset, *dataDir, *workDir, *verbose); err != nil {
		log.Fatal(err)
	}
}

// decay is the tutorial's learning-rate schedule.
func decay(epoch int, _ float64) float64 {
	switch {
	case epoch < 3:
		return 1e-3
	case epoch < 7:
		return 1e-4
	}
	return 1e-5
}

// printLR prints the learning rate at the end of each epoch, as the
// tutorial's PrintLR callback.
type printLR struct{ keras.CallbackBase }

func (p *printLR) OnEpochEnd(epoch int, _ keras.Logs) error {
	fmt.Printf("\nLearning rate for epoch %d is %g\n", epoch+1, p.Model.Optimizer().CurrentLearningRate())
	return nil
}

func run(replicas, epochs, limit int, seed int64, dataset, dataDir, dir string, verbose int) error {
	layers.SetRandomSeed(uint64(seed))
	xTrain, yTrain, xTest, yTest, err := exampledata.Load(dataset, dataDir, limit)
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

	const bufferSize = 10000
	const batchSizePerReplica = 64
	batchSize := batchSizePerReplica * strategy.NumReplicasInSync()
	train, err := datasets.FromTensorSlices(xTrain, yTrain)
	if err != nil {
		return err
	}
	trainDataset := train.Shuffle(bufferSize, seed).Batch(batchSize, false).Prefetch(2)
	eval, err := datasets.FromTensorSlices(xTest, yTest)
	if err != nil {
		return err
	}
	evalDataset := eval.Batch(batchSize, false)

	exit := strategy.Scope()
	model, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(64, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
	if err == nil {
		err = model.Compile(keras.CompileConfig{
			Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
			Optimizer: optimizers.NewAdam(),
			Metrics:   []any{"accuracy"},
		})
	}
	exit()
	if err != nil {
		return err
	}

	if dir == "" {
		if dir, err = os.MkdirTemp("", "distributed_keras"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	checkpointDir := filepath.Join(dir, "training_checkpoints")
	checkpointPrefix := filepath.Join(checkpointDir, "ckpt_{epoch}.weights.npz")
	cbs := []keras.Callback{
		callbacks.NewTensorBoard(filepath.Join(dir, "logs")),
		callbacks.NewModelCheckpoint(checkpointPrefix, callbacks.SaveWeightsOnly(true)),
		callbacks.NewLearningRateScheduler(decay),
		&printLR{},
	}
	if _, err := model.Fit(trainDataset, nil, keras.FitConfig{Epochs: epochs, Callbacks: cbs, Verbose: verbose}); err != nil {
		return err
	}

	// Restore the latest checkpoint and evaluate.
	latest, err := latestCheckpoint(checkpointDir)
	if err != nil {
		return err
	}
	if err := model.LoadWeights(latest); err != nil {
		return err
	}
	logs, err := model.Evaluate(evalDataset, nil, keras.EvaluateConfig{Verbose: verbose})
	if err != nil {
		return err
	}
	evalLoss, _ := logs.Get("loss")
	evalAcc, _ := logs.Get("accuracy")
	fmt.Printf("Eval loss: %.4f, Eval accuracy: %.4f\n", evalLoss, evalAcc)
	if verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("test_accuracy: %.4f\n", evalAcc)
	return nil
}

// latestCheckpoint returns the checkpoint of the last epoch in dir.
func latestCheckpoint(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "ckpt_*.weights.npz"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no checkpoint in %s", dir)
	}
	epochOf := func(f string) int {
		var n int
		fmt.Sscanf(filepath.Base(f), "ckpt_%d.weights.npz", &n)
		return n
	}
	sort.Slice(files, func(i, j int) bool { return epochOf(files[i]) < epochOf(files[j]) })
	return files[len(files)-1], nil
}
