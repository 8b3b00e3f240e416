// Command mnist_cnn is the MNIST CNN of TensorFlow's "Distributed training
// with Keras" tutorial, ported line by line: a small CNN trained with Adam on
// Fashion-MNIST (default) or MNIST digits, ending with the test accuracy.
//
//	go run ./examples/mnist_cnn                  # Fashion-MNIST, 5 epochs
//	go run ./examples/mnist_cnn -dataset mnist   # MNIST digits
//	go run ./examples/mnist_cnn -save-model cnn.keras  # then keras.saving.load_model("cnn.keras") in Python
//
// Data comes from -data DIR (that folder only), else the Keras cache
// (~/.keras/datasets), the folders listed in $GOKERAS_DATASETS or the
// Debian package dataset-fashion-mnist (/usr/share/datasets/fashion-mnist);
// see package datasets.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"

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
	dataset := flag.String("dataset", "fashion_mnist", "fashion_mnist or mnist")
	dataDir := flag.String("data", "", "directory holding the dataset files (default: the usual places)")
	epochs := flag.Int("epochs", 5, "training epochs")
	batchSize := flag.Int("batch-size", 64, "batch size per replica (the global batch is this times -replicas)")
	limit := flag.Int("limit", 0, "use only the first N training examples (0: all)")
	seed := flag.Int64("seed", 0, "random seed for weights and shuffling")
	verbose := flag.Int("verbose", keras.VerboseBar, "Fit verbosity, as Keras' verbose: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	replicas := flag.Int("replicas", 1, "replicas of MirroredStrategy (logical CPUs when there is no GPU)")
	flag.StringVar(&backupDir, "backup-dir", "", "BackupAndRestore directory: an interrupted run started again resumes at the epoch it reached")
	flag.StringVar(&saveWeights, "save-weights", "", "write the final weights to this .weights.h5 file (Keras 3's weights file; .npz for a NumPy archive)")
	flag.StringVar(&saveModel, "save-model", "", "write the whole model after training to this .keras file (Keras 3's format: Python Keras' load_model reads it)")
	flag.StringVar(&plotPath, "plot", "history.png", "write the training curves to this PNG (empty: no plot)")
	flag.IntVar(&globalBatch, "global-batch", 0, "global batch size (default: -batch-size times the replicas, as the tutorial); fixing it makes runs with different replica counts the same computation")
	policy := cli.PolicyFlag() // -policy mixed_bfloat16 | mixed_float16 (issue 16)
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "batch-size", "replicas"), cli.NonNegative("limit", "global-batch"), cli.OneOf("verbose", 0, 1, 2),
		cli.OutputFile("save-model", ".keras", ".h5", ".hdf5"), cli.OutputFile("save-weights", ".weights.h5", ".npz"), cli.OutputFile("plot"), cli.OutputDir("backup-dir"), cli.OneOfStrings("dataset", cli.Datasets...))
	cli.MustSetPolicy(*policy)
	if err := run(*dataset, *dataDir, *epochs, *batchSize, *limit, *seed, *verbose, *replicas); err != nil {
		log.Fatal(err)
	}
}

var (
	backupDir, saveWeights, saveModel, plotPath string
	globalBatch                                 int
)

func run(dataset, dataDir string, epochs, batchSize, limit int, seed int64, verbose, replicas int) error {
	layers.SetRandomSeed(uint64(seed))
	if err := distribute.SetLogicalCPUs(replicas); err != nil {
		return err
	}
	strategy, err := distribute.NewMirroredStrategy()
	if err != nil {
		return err
	}
	fmt.Printf("Number of devices: %d\n", strategy.NumReplicasInSync())
	// The tutorial's global batch: the per-replica batch times the replicas.
	batchSize *= strategy.NumReplicasInSync()
	if globalBatch > 0 {
		batchSize = globalBatch
	}
	xTrain, yTrain, xTest, yTest, err := exampledata.Load(dataset, dataDir, limit)
	if err != nil {
		return err
	}
	const bufferSize = 10000
	trainDS, err := datasets.FromTensorSlices(xTrain, yTrain)
	if err != nil {
		return err
	}
	trainDataset := trainDS.Shuffle(bufferSize, seed).Batch(batchSize, false).Prefetch(2)
	evalDS, err := datasets.FromTensorSlices(xTest, yTest)
	if err != nil {
		return err
	}
	evalDataset := evalDS.Batch(batchSize, false).Prefetch(2)

	exit := strategy.Scope()
	model, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
	if err != nil {
		return err
	}
	err = model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewAdam(),
		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
		Metrics:   []any{"accuracy"},
	})
	exit()
	if err != nil {
		return err
	}
	if verbose != keras.VerboseSilent {
		if err := model.Summary(); err != nil {
			return err
		}
	}
	var cbs []keras.Callback
	if backupDir != "" {
		cbs = append(cbs, callbacks.NewBackupAndRestore(backupDir))
	}
	// Ctrl-C stops Fit at the end of the current batch (callbacks still
	// see the end of training, so a backup is kept).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	history, err := model.Fit(trainDataset, nil, keras.FitConfig{Epochs: epochs, ValidationData: evalDataset, Verbose: verbose, Callbacks: cbs, Context: ctx})
	if err != nil {
		return err
	}
	if plotPath != "" {
		if err := history.Plot(plotPath); err != nil {
			return err
		}
	}
	if saveWeights != "" {
		if err := model.SaveWeights(saveWeights); err != nil {
			return err
		}
	}
	if saveModel != "" {
		if err := model.Save(saveModel); err != nil {
			return err
		}
	}
	logs, err := model.Evaluate(evalDataset, nil, keras.EvaluateConfig{Verbose: verbose})
	if err != nil {
		return err
	}
	acc, _ := logs.Get("accuracy")
	if verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Fprintf(os.Stdout, "test_accuracy: %.4f\n", acc)
	return nil
}
