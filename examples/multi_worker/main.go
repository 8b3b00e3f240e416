// Command multi_worker is TensorFlow's "Multi-worker training with Keras"
// tutorial ported line by line: the mnist_setup model (Input 28x28,
// Reshape 28x28x1, Conv2D 32 3 relu, Flatten, Dense 128 relu, Dense 10)
// trained with SGD(0.001) under a MultiWorkerMirroredStrategy, a batch of
// 64 per worker, 3 epochs of 70 steps. With -custom-loop it is the
// tutorial's custom training loop instead (strategy.Run of a
// GradientTape step, Reduce SUM over the replicas, a barrier per epoch).
// The chief prints the test accuracy.
//
// Build with the mpi tag and launch one process per worker:
//
//	go build -tags mpi -o multi_worker ./examples/multi_worker
//	mpirun -np 2 ./multi_worker                 # two workers on this machine
//	srun -n 4 ./multi_worker                    # Slurm
//	./multi_worker -replicas 2                  # one process, two replicas
//
// Data comes from -data DIR (that folder only), else the Keras cache
// (~/.keras/datasets), the folders listed in $GOKERAS_DATASETS or the
// Debian package dataset-fashion-mnist; see package datasets.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

type config struct {
	dataset, dataDir, backupDir string
	epochs, steps, limit        int
	perWorkerBatch, globalBatch int
	replicas                    int
	seed                        int64
	verbose                     int
	customLoop                  bool
	ring                        bool
	learningRate                float64
	noOverlap, profile          bool
	bytesPerPack                int
	model                       string
}

func main() {
	var c config
	flag.StringVar(&c.dataset, "dataset", "fashion_mnist", "fashion_mnist or mnist")
	flag.StringVar(&c.dataDir, "data", "", "directory holding the dataset files (default: the usual places)")
	flag.IntVar(&c.epochs, "epochs", 3, "training epochs")
	flag.IntVar(&c.steps, "steps-per-epoch", 70, "steps per epoch (0: a whole pass over the data)")
	flag.IntVar(&c.limit, "limit", 0, "use only the first N training examples (0: all)")
	flag.IntVar(&c.perWorkerBatch, "batch-size", 64, "batch size per worker (the global batch is this times the workers)")
	flag.IntVar(&c.globalBatch, "global-batch", 0, "global batch size (default: -batch-size times the workers); fixing it makes runs with different worker and replica counts the same computation")
	flag.IntVar(&c.replicas, "replicas", 1, "local replicas per worker (logical CPUs when there is no GPU)")
	flag.Int64Var(&c.seed, "seed", 0, "random seed for weights and shuffling")
	flag.IntVar(&c.verbose, "verbose", keras.VerboseEpoch, "Fit verbosity on the chief, as Keras' verbose: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the chief's peak RSS)")
	flag.StringVar(&c.backupDir, "backup-dir", "", "BackupAndRestore directory: a job started again after a failure resumes at the last completed epoch; after a SIGTERM to any worker (a preemption), at the batch every worker backed up before exiting")
	flag.BoolVar(&c.customLoop, "custom-loop", false, "train with the tutorial's custom training loop instead of Fit")
	flag.Float64Var(&c.learningRate, "learning-rate", 0.001, "SGD learning rate (the tutorial's 0.001)")
	flag.BoolVar(&c.ring, "ring", false, "all-reduce with our ring (RING) instead of MPI_Allreduce (AUTO)")
	flag.BoolVar(&c.noOverlap, "no-overlap", false, "all-reduce the gradients after the backward pass instead of overlapping it (CommunicationOptions.NoOverlap)")
	flag.IntVar(&c.bytesPerPack, "bytes-per-pack", 0, "gradient bucket size in bytes (CommunicationOptions.BytesPerPack; 0: 4 MiB)")
	flag.StringVar(&c.model, "model", "cnn", "cnn (the tutorial's, on -dataset), resnet_seed (the seed ResNet) or resnet50 (keras.applications' ResNet50, 23.6 M parameters), the ResNets on synthetic 32x32x3 images, Fit only")
	flag.BoolVar(&c.profile, "profile", false, "print where a training step's time goes: the gradient all-reduce's time and the part of it the backward pass did not hide")
	flag.Parse()
	err := validate(c)
	if err == nil {
		err = cli.Check(flag.CommandLine, cli.OutputDir("backup-dir"), cli.OneOfStrings("dataset", cli.Datasets...))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "multi_worker:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(c); errors.Is(err, callbacks.ErrPreempted) {
		// Every worker backed up at the same batch: a clean exit, so the
		// cluster manager restarts the job, which resumes there.
		fmt.Println("multi_worker:", err)
		return
	} else if err != nil {
		log.Fatal(err)
	}
}

func validate(c config) error {
	switch {
	case c.epochs < 1:
		return fmt.Errorf("-epochs %d: need at least 1", c.epochs)
	case c.steps < 0:
		return fmt.Errorf("-steps-per-epoch %d is negative", c.steps)
	case c.limit < 0:
		return fmt.Errorf("-limit %d is negative", c.limit)
	case c.perWorkerBatch < 1:
		return fmt.Errorf("-batch-size %d: need at least 1", c.perWorkerBatch)
	case c.globalBatch < 0:
		return fmt.Errorf("-global-batch %d is negative", c.globalBatch)
	case c.replicas < 1 || c.replicas > 1024:
		return fmt.Errorf("-replicas %d: want 1 to 1024", c.replicas)
	case !slices.Contains(modelNames, c.model):
		return fmt.Errorf("-model %q: want one of %v", c.model, modelNames)
	case c.model != "cnn" && c.customLoop:
		return fmt.Errorf("-model %s: the custom loop trains the tutorial's cnn only", c.model)
	case c.bytesPerPack < 0:
		return fmt.Errorf("-bytes-per-pack %d is negative", c.bytesPerPack)
	case !(c.learningRate > 0) || c.learningRate > 1e3:
		return fmt.Errorf("-learning-rate %v: want a positive number", c.learningRate)
	}
	return nil
}

// mnistDataset is mnist_setup.mnist_dataset: the training images scaled
// to [0, 1], shuffled, repeated and batched to the global batch size
// (shuffle(60000).repeat().batch(batch_size)), so that every epoch has its
// -steps-per-epoch full batches whatever -limit leaves. With
// -steps-per-epoch 0 an epoch is one pass over the data, not repeated.
func mnistDataset(c config, xTrain, yTrain *tensor.Dense, batchSize int) (*datasets.Dataset, error) {
	ds, err := datasets.FromTensorSlices(xTrain, yTrain)
	if err != nil {
		return nil, err
	}
	ds = ds.Shuffle(60000, c.seed)
	if c.steps > 0 {
		ds = ds.Repeat()
	}
	return ds.Batch(batchSize, false), nil
}

// buildCNNModel is mnist_setup.build_cnn_model.
func buildCNNModel() (*keras.Model, error) {
	return keras.NewSequential(
		layers.NewReshape([]int{28, 28, 1}, layers.WithInputShape(28, 28)),
		layers.NewConv2D(32, 3, layers.WithActivation("relu")),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
}

func run(c config) error {
	layers.SetRandomSeed(uint64(c.seed))
	if err := distribute.SetLogicalCPUs(c.replicas); err != nil {
		return err
	}
	opts := distribute.CommunicationOptions{NoOverlap: c.noOverlap, BytesPerPack: c.bytesPerPack}
	if c.ring {
		opts.Implementation = distribute.RING
	}
	strategy, err := distribute.NewMultiWorkerMirroredStrategy(distribute.Communication(opts))
	if err != nil {
		return err
	}
	defer strategy.Close()
	chief := strategy.IsChief()
	say := func(format string, args ...any) {
		if chief {
			fmt.Printf(format, args...)
		}
	}
	say("Workers: %d, replicas in sync: %d\n", strategy.NumWorkers(), strategy.NumReplicasInSync())

	numWorkers := strategy.NumWorkers()
	globalBatchSize := c.perWorkerBatch * numWorkers
	if c.globalBatch > 0 {
		globalBatchSize = c.globalBatch
	}
	var xTrain, yTrain, xTest, yTest *tensor.Dense
	if c.model == "cnn" {
		xTrain, yTrain, xTest, yTest, err = exampledata.Load(c.dataset, c.dataDir, c.limit)
		if err != nil {
			return err
		}
		// The tutorial's input is 28x28 images; the model reshapes them.
		for _, x := range []*tensor.Dense{xTrain, xTest} {
			if err := x.Reshape(x.Shape()[0], 28, 28); err != nil {
				return err
			}
		}
	} else {
		n := max(c.limit, 2*globalBatchSize)
		xTrain, yTrain = syntheticImages(n, uint64(c.seed))
		xTest, yTest = syntheticImages(256, uint64(c.seed)+1)
	}
	multiWorkerDataset, err := mnistDataset(c, xTrain, yTrain, globalBatchSize)
	if err != nil {
		return err
	}
	var model *keras.Model
	strategy.TakeCommunicationStats() // count from the first step
	start := time.Now()
	// Examples seen: the repeated dataset gives every step a full global
	// batch; without -steps-per-epoch every epoch is one pass, its last
	// batch partial. Fit counts the batches it trains (a run resumed from
	// a backup trains only the rest).
	n := c.epochs * c.steps * globalBatchSize
	steps := c.epochs * c.steps
	if c.steps == 0 {
		n = c.epochs * xTrain.Shape()[0]
		steps = c.epochs * ((xTrain.Shape()[0] + globalBatchSize - 1) / globalBatchSize)
	}
	if c.customLoop {
		model, err = customLoop(c, strategy, multiWorkerDataset, globalBatchSize, say)
	} else {
		counted := newTrainedCounter(xTrain.Shape()[0], globalBatchSize, c.steps)
		model, err = fit(c, strategy, multiWorkerDataset, chief, counted)
		n, steps = counted.examples, counted.steps
	}
	if err != nil {
		return err
	}
	took := time.Since(start)
	say("trained on %d examples in %.1f s: %.0f samples/s over all workers\n", n, took.Seconds(), float64(n)/took.Seconds())
	if c.profile {
		say("%s\n", profileLine(strategy.TakeCommunicationStats(), took, steps))
	}
	// Every worker holds the same weights; the chief reports.
	acc, err := testAccuracy(model, xTest, yTest)
	if err != nil {
		return err
	}
	if chief && c.verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout) // the chief's; every worker holds the same model and data
	}
	say("test_accuracy: %.4f\n", acc)
	return nil
}

// testAccuracy is the fraction of test images whose largest logit is
// their label.
func testAccuracy(model *keras.Model, x, y *tensor.Dense) (float64, error) {
	logits, err := model.Predict(x, keras.PredictConfig{BatchSize: 256, Verbose: keras.VerboseSilent})
	if err != nil {
		return 0, err
	}
	p, labels := logits.Data().([]float32), y.Data().([]float32)
	k := logits.Shape()[1]
	right := 0
	for i, l := range labels {
		best := 0
		for j := 1; j < k; j++ {
			if p[i*k+j] > p[i*k+best] {
				best = j
			}
		}
		if float32(best) == l {
			right++
		}
	}
	return float64(right) / float64(len(labels)), nil
}

// fit is the tutorial's multi_worker_model.fit.
// trainedCounter counts the batches Fit trains and their examples.
type trainedCounter struct {
	keras.CallbackBase
	batch, perEpoch, last int // a full global batch; batches an epoch and the last one's size (0: every batch full)
	steps, examples       int
}

// newTrainedCounter counts for n examples in global batches of batch,
// stepsPerEpoch of them an epoch (0: one pass, the last batch partial).
func newTrainedCounter(n, batch, stepsPerEpoch int) *trainedCounter {
	c := &trainedCounter{batch: batch}
	if stepsPerEpoch == 0 {
		c.perEpoch = (n + batch - 1) / batch
		c.last = n - (c.perEpoch-1)*batch
	}
	return c
}

func (c *trainedCounter) OnTrainBatchEnd(b int, _ keras.Logs) error {
	c.steps++
	if c.perEpoch > 0 && b == c.perEpoch-1 {
		c.examples += c.last
	} else {
		c.examples += c.batch
	}
	return nil
}

func fit(c config, strategy *distribute.MultiWorkerMirroredStrategy, ds *datasets.Dataset, chief bool, counted keras.Callback) (*keras.Model, error) {
	exit := strategy.Scope()
	model, err := buildModel(c.model)
	if err == nil {
		err = model.Compile(keras.CompileConfig{
			Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
			Optimizer: optimizers.NewSGD(optimizers.LearningRate(c.learningRate)),
			Metrics:   []any{"accuracy"},
		})
	}
	exit()
	if err != nil {
		return nil, err
	}
	cbs := []keras.Callback{counted}
	if c.backupDir != "" {
		cbs = append(cbs, callbacks.NewBackupAndRestore(c.backupDir, callbacks.SaveBeforePreemption(true)))
	}
	verbose := c.verbose
	if !chief {
		verbose = keras.VerboseSilent
	}
	_, err = model.Fit(ds, nil, keras.FitConfig{Epochs: c.epochs, StepsPerEpoch: c.steps, Verbose: verbose, Callbacks: cbs})
	return model, err
}
