// Command parameter_server is TensorFlow's "Parameter server training"
// tutorial (its Model.fit part; -custom-loop runs its custom training loop
// with a ClusterCoordinator) and the seed's snippet under a
// ParameterServerStrategy: a chief (the coordinator), workers that run
// the steps, and parameter servers that hold the variables and apply the
// optimizer asynchronously.
//
// Every task runs this same program; TF_CONFIG says which task a process
// is. To start a whole cluster on this machine, as child processes on
// free loopback ports:
//
//	go run ./examples/parameter_server -launch-local workers=2,ps=1
//	go run ./examples/parameter_server -launch-local workers=2,ps=1 -model cnn
//
// -launch-local gives every task a throwaway certificate of a fresh
// cluster CA, so that the tasks talk mutual TLS (-tls=false: none, and
// every task warns); a cluster launched by hand gets its certificates
// from tools/pscerts (docs/security.md). A job whose training or test
// loss is NaN or Inf fails.
//
// -model seed (the default) is the seed's snippet: Dense(32) on 5
// features, Dense(16, relu), Dense(1), mse, SGD, 2 epochs, evaluate. -model
// cnn is the seed CNN on Fashion-MNIST (Adam, sparse categorical
// cross-entropy from logits); the chief prints its test accuracy and the
// samples per second over all workers. -strategy mirrored trains the same
// model in one process with a MirroredStrategy of -replicas replicas, the
// baseline of docs/performance.md. -working-dir DIR adds the tutorial's
// callbacks (TensorBoard, ModelCheckpoint, BackupAndRestore), which run on
// the chief.
//
// Data comes from -data DIR (that folder only), else the Keras cache
// (~/.keras/datasets), $GOKERAS_DATASETS or the Debian package
// dataset-fashion-mnist; see package datasets.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/examples/internal/models"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

type config struct {
	model, dataset, dataDir string
	strategy                string
	launch                  string
	backupDir, workingDir   string
	epochs, steps, batch    int
	fineTuneEpochs          int
	limit, replicas         int
	evalBatch, perExec      int
	seed                    int64
	verbose                 int
	learningRate            float64
	customLoop              bool
	tls                     bool
	connectTimeout          time.Duration
	set                     map[string]bool // the flags given on the command line
}

func main() {
	var c config
	flag.StringVar(&c.model, "model", "seed", "seed (the seed's Dense snippet on random data) or cnn (the seed CNN on Fashion-MNIST)")
	flag.StringVar(&c.dataset, "dataset", "fashion_mnist", "for -model cnn: fashion_mnist or mnist")
	flag.StringVar(&c.dataDir, "data", "", "directory holding the dataset files (default: the usual places)")
	flag.StringVar(&c.strategy, "strategy", "ps", "ps (ParameterServerStrategy, the task from TF_CONFIG) or mirrored (MirroredStrategy in one process, the baseline)")
	flag.StringVar(&c.launch, "launch-local", "", "start a whole cluster on this machine as child processes, e.g. workers=2,ps=1")
	flag.StringVar(&c.backupDir, "backup-dir", "", "BackupAndRestore directory: a job relaunched after a failure (a dead PS) resumes at the last completed epoch")
	flag.StringVar(&c.workingDir, "working-dir", "", "the tutorial's callbacks under this directory: TensorBoard (log), ModelCheckpoint (ckpt.keras) and BackupAndRestore (backup, unless -backup-dir)")
	flag.IntVar(&c.epochs, "epochs", 0, "training epochs (default: 2 for seed, 3 for cnn)")
	flag.IntVar(&c.fineTuneEpochs, "fine-tune-epochs", 0, "after training, a second Fit of this many epochs at a tenth of the learning rate (fine-tuning: every task calls Fit twice)")
	flag.IntVar(&c.steps, "steps-per-epoch", 0, "steps per epoch, each one batch on one worker (default: 20 for seed, 900 for cnn; with -limit at most one pass over the N examples)")
	flag.IntVar(&c.batch, "batch-size", 64, "batch size of one step (per replica with -strategy mirrored)")
	flag.IntVar(&c.limit, "limit", 0, "use only the first N training examples (0: all; the seed's and the custom loop's synthetic data too)")
	flag.IntVar(&c.replicas, "replicas", 2, "with -strategy mirrored: replicas (logical CPUs)")
	flag.IntVar(&c.perExec, "steps-per-execution", 10, "Keras' steps_per_execution, as the tutorial compiles: steps per scheduled call on a worker")
	flag.IntVar(&c.evalBatch, "eval-batch-size", 256, "batch size of the chief's evaluation")
	flag.Int64Var(&c.seed, "seed", 1, "random seed for weights and shuffling")
	flag.IntVar(&c.verbose, "verbose", keras.VerboseEpoch, "Fit verbosity on the chief, as Keras' verbose (1 and 2 also print the chief's peak RSS, and -launch-local every task's on stderr at the end)")
	flag.Float64Var(&c.learningRate, "learning-rate", 0, "learning rate (default: SGD 0.01 for seed, Adam 0.001 for cnn)")
	flag.DurationVar(&c.connectTimeout, "connect-timeout", 30*time.Second, "how long a task waits for the parameter servers to answer when it starts")
	flag.BoolVar(&c.customLoop, "custom-loop", false, "the tutorial's custom training loop with a ClusterCoordinator instead of Fit")
	flag.BoolVar(&c.tls, "tls", true, "with -launch-local: mutual TLS between the tasks, with throwaway certificates of a fresh cluster CA (-tls=false: none, as TensorFlow)")
	flag.Parse()
	c.set = map[string]bool{}
	flag.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	cli.MustCheck(cli.NonNegative("epochs", "steps-per-epoch", "limit", "fine-tune-epochs"), cli.Positive("batch-size", "replicas", "eval-batch-size", "steps-per-execution"))
	if err := defaults(&c); err != nil {
		fmt.Fprintln(os.Stderr, "parameter_server:", err)
		flag.Usage()
		os.Exit(2)
	}
	if c.launch != "" {
		os.Exit(launchLocal(c.launch, os.Args[1:], c.tls, c.verbose != keras.VerboseSilent))
	}
	if err := run(c); err != nil {
		log.Fatal(err)
	}
}

// defaults fills the per-model defaults and checks the choices.
func defaults(c *config) error {
	switch c.model {
	case "seed":
		c.epochs, c.steps = or(c.epochs, 2), or(c.steps, 20)
		if c.learningRate == 0 {
			c.learningRate = 0.01
		}
	case "cnn":
		c.epochs, c.steps = or(c.epochs, 3), or(c.steps, 900)
		if c.learningRate == 0 {
			c.learningRate = 0.001
		}
	default:
		return fmt.Errorf("-model %q: want seed or cnn", c.model)
	}
	if c.limit > 0 && !c.set["steps-per-epoch"] {
		// An epoch is at most one pass over the examples -limit leaves
		// (the default 900 steps of 64 are one pass over Fashion-MNIST).
		c.steps = min(c.steps, passSteps(c.limit, c.batch))
	}
	if c.strategy != "ps" && c.strategy != "mirrored" {
		return fmt.Errorf("-strategy %q: want ps or mirrored", c.strategy)
	}
	if c.customLoop && c.strategy != "ps" {
		return fmt.Errorf("-custom-loop runs under the ParameterServerStrategy only (not with -strategy %s)", c.strategy)
	}
	if !(c.learningRate > 0) {
		return fmt.Errorf("-learning-rate %v: want a positive number", c.learningRate)
	}
	return nil
}

// passSteps is the number of batches of batch examples in one pass over
// n examples (the last one partial).
func passSteps(n, batch int) int { return (n + batch - 1) / batch }

func or(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// data is the training and test sets of the model.
type data struct{ xTrain, yTrain, xTest, yTest *tensor.Dense }

func loadData(c config) (data, error) {
	if c.model == "seed" {
		// The snippet's random regression data, the same on every task
		// (its first -limit rows).
		r := rand.New(rand.NewPCG(uint64(c.seed), 5))
		mk := func(n, d int) *tensor.Dense {
			v := make([]float32, n*d)
			for i := range v {
				v[i] = r.Float32()
			}
			return tensor.New(tensor.WithShape(n, d), tensor.WithBacking(v))
		}
		xTrain, yTrain, xTest, yTest := mk(1000, 5), mk(1000, 1), mk(200, 5), mk(200, 1)
		if c.limit > 0 && c.limit < 1000 {
			xTrain = firstRows(xTrain, c.limit)
			yTrain = firstRows(yTrain, c.limit)
		}
		return data{xTrain, yTrain, xTest, yTest}, nil
	}
	xTrain, yTrain, xTest, yTest, err := exampledata.Load(c.dataset, c.dataDir, c.limit)
	return data{xTrain, yTrain, xTest, yTest}, err
}

// firstRows returns the first n rows of the matrix t (a copy).
func firstRows(t *tensor.Dense, n int) *tensor.Dense {
	cols := t.Shape()[1]
	v := append([]float32(nil), t.Data().([]float32)[:n*cols]...)
	return tensor.New(tensor.WithShape(n, cols), tensor.WithBacking(v))
}

// buildModel makes and compiles the model in strategy's scope.
func buildModel(c config, strategy engine.Strategy) (*keras.Model, error) {
	exit := engine.EnterScope(strategy)
	defer exit()
	if c.model == "seed" {
		model, err := keras.NewSequential(
			layers.NewDense(32, layers.WithInputShape(5)),
			layers.NewDense(16, layers.WithActivation("relu")),
			layers.NewDense(1))
		if err != nil {
			return nil, err
		}
		return model, model.Compile(keras.CompileConfig{Loss: "mse", Optimizer: optimizers.NewSGD(optimizers.LearningRate(c.learningRate)), StepsPerExecution: c.perExec})
	}
	model, err := models.MNISTCNN()
	if err != nil {
		return nil, err
	}
	return model, model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewAdam(optimizers.LearningRate(c.learningRate)),
		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
		Metrics:   []any{"accuracy"},

		StepsPerExecution: c.perExec,
	})
}

func run(c config) error {
	layers.SetRandomSeed(uint64(c.seed))
	var d data
	var err error
	if !c.customLoop {
		if d, err = loadData(c); err != nil {
			return err
		}
	}
	if c.strategy == "mirrored" {
		return runMirrored(c, d)
	}
	strategy, err := distribute.NewParameterServerStrategy(nil, distribute.ConnectTimeout(c.connectTimeout))
	if err != nil {
		return fmt.Errorf("%w\n(to start a whole cluster on this machine: -launch-local workers=2,ps=1)", err)
	}
	defer strategy.Close()
	if c.customLoop {
		return customLoop(c, strategy, d)
	}
	model, err := buildModel(c, strategy)
	if err != nil {
		return err
	}
	// The tutorial's callbacks; they run on the chief, on the weights it
	// pulls from the servers at the end of each epoch.
	var cbs []keras.Callback
	backup := c.backupDir
	if c.workingDir != "" {
		cbs = append(cbs,
			callbacks.NewTensorBoard(filepath.Join(c.workingDir, "log")),
			callbacks.NewModelCheckpoint(filepath.Join(c.workingDir, "ckpt.keras")))
		if backup == "" {
			backup = filepath.Join(c.workingDir, "backup")
		}
	}
	if backup != "" {
		cbs = append(cbs, callbacks.NewBackupAndRestore(backup))
	}
	verbose := c.verbose
	if !strategy.IsCoordinator() {
		verbose = keras.VerboseSilent
	}
	start := time.Now()
	// Every task calls Fit: the chief coordinates, the workers serve its
	// steps on their own shuffles of the data (their Fit returns when the
	// chief's ends, so a second Fit would find them again), the servers
	// serve the variables until the chief's Close.
	hist, err := model.Fit(d.xTrain, d.yTrain, keras.FitConfig{
		Epochs: c.epochs, StepsPerEpoch: c.steps, BatchSize: c.batch,
		Verbose: verbose, Callbacks: cbs, Seed: uint64(c.seed),
	})
	if err != nil {
		return err
	}
	if err := finiteLoss(hist); err != nil {
		return err
	}
	if c.fineTuneEpochs > 0 {
		// A second Fit on every task, as a tutorial fine-tunes: the
		// workers' first Fit returned when the chief's ended, and they
		// serve this one.
		lr := model.Optimizer().CurrentLearningRate()
		model.Optimizer().SetLearningRate(lr / 10)
		_, err = model.Fit(d.xTrain, d.yTrain, keras.FitConfig{
			Epochs: c.fineTuneEpochs, StepsPerEpoch: c.steps, BatchSize: c.batch,
			Verbose: verbose, Seed: uint64(c.seed) + 1,
		})
		if err != nil {
			return fmt.Errorf("fine-tuning: %w", err)
		}
	}
	if !strategy.IsCoordinator() {
		return nil
	}
	took := time.Since(start)
	steps := (c.epochs + c.fineTuneEpochs) * c.steps
	n := steps * c.batch
	fmt.Printf("trained %d steps of %d in %.1f s: %.0f samples/s over %d workers\n", steps, c.batch, took.Seconds(), float64(n)/took.Seconds(), strategy.NumWorkers())
	return report(c, model, d)
}

// finiteLoss returns an error when a training loss of hist is NaN or
// Inf: a job whose loss went NaN fails (exits non-zero) instead of
// reporting the accuracy of garbage weights.
func finiteLoss(hist *keras.History) error {
	if hist == nil {
		return nil
	}
	for i, l := range hist.History["loss"] {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			epoch := i + 1
			if i < len(hist.Epoch) {
				epoch = hist.Epoch[i] + 1
			}
			return fmt.Errorf("the training loss is %v at epoch %d: the job failed (lower -learning-rate)", l, epoch)
		}
	}
	return nil
}

// report evaluates the model on the test set, on the chief.
func report(c config, model *keras.Model, d data) error {
	logs, err := model.Evaluate(d.xTest, d.yTest, keras.EvaluateConfig{BatchSize: c.evalBatch, Verbose: keras.VerboseSilent})
	if err != nil {
		return err
	}
	if c.verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("test_loss: %.4f\n", logs["loss"])
	if l := logs["loss"]; math.IsNaN(l) || math.IsInf(l, 0) {
		return fmt.Errorf("the test loss is %v: the model's weights are not finite; the job failed", l)
	}
	if acc, ok := logs["accuracy"]; ok {
		fmt.Printf("test_accuracy: %.4f\n", acc)
	}
	return nil
}

// runMirrored trains the same model with a MirroredStrategy of c.replicas
// replicas in this process, c.batch examples per replica and step.
func runMirrored(c config, d data) error {
	if err := distribute.SetLogicalCPUs(c.replicas); err != nil {
		return err
	}
	strategy, err := distribute.NewMirroredStrategy()
	if err != nil {
		return err
	}
	model, err := buildModel(c, strategy)
	if err != nil {
		return err
	}
	global := c.batch * strategy.NumReplicasInSync()
	steps := 0 // a pass may end before StepsPerEpoch
	count := &callbacks.LambdaCallback{TrainBatchEnd: func(int, keras.Logs) error { steps++; return nil }}
	start := time.Now()
	_, err = model.Fit(d.xTrain, d.yTrain, keras.FitConfig{
		Epochs: c.epochs, StepsPerEpoch: c.steps, BatchSize: global,
		Verbose: c.verbose, Seed: uint64(c.seed), Callbacks: []keras.Callback{count},
	})
	if err != nil {
		return err
	}
	took := time.Since(start)
	n := steps * global
	fmt.Printf("trained %d steps of %d in %.1f s: %.0f samples/s over %d replicas\n", steps, global, took.Seconds(), float64(n)/took.Seconds(), strategy.NumReplicasInSync())
	return report(c, model, d)
}
