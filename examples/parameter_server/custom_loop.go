package main

// The custom training loop of TensorFlow's "Parameter server training"
// tutorial, with a ClusterCoordinator: every task builds the same model
// and registers the same step and per-worker dataset; the chief schedules
// steps on the workers, which push their gradients to the parameter
// servers, and joins at the end of each epoch.

import (
	"fmt"
	"math/rand/v2"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// customLoopConfig sets the loop's sizes; zero fields take the tutorial's
// values (4 epochs of 20 steps, batches of 64, RMSprop at 0.1, 2000
// synthetic training examples).
type customLoopConfig struct {
	Epochs, StepsPerEpoch, Batch int
	Examples                     int // of the synthetic data, when runCustomLoop gets none
	LearningRate                 float64
	Seed                         uint64
	Print                        func(format string, args ...any) // nil: fmt.Printf
}

func (c *customLoopConfig) defaults() {
	if c.Epochs <= 0 {
		c.Epochs = 4
	}
	if c.StepsPerEpoch <= 0 {
		c.StepsPerEpoch = 20
	}
	if c.Batch <= 0 {
		c.Batch = 64
	}
	if c.LearningRate <= 0 {
		c.LearningRate = 0.1
	}
	if c.Examples <= 0 {
		c.Examples = 2000
	}
	if c.Print == nil {
		c.Print = func(format string, args ...any) { fmt.Printf(format, args...) }
	}
}

// runCustomLoop runs the tutorial's custom loop on this task of strategy's
// cluster: binary classification (x: rows of features, y: 0/1 labels of
// shape [n, 1]; nil x gives the tutorial-like synthetic data, the same on
// every task) with Dense(10, relu) and Dense(1, sigmoid). On the chief it
// trains, prints each epoch's accuracy and the final loss, evaluates on
// xTest/yTest (when given) and shuts the cluster down; on a worker or a
// server it serves until then.
func runCustomLoop(strategy *distribute.ParameterServerStrategy, x, y, xTest, yTest *tensor.Dense, cfg customLoopConfig) error {
	cfg.defaults()
	if x == nil {
		x, y = customLoopData(cfg.Examples, cfg.Seed)
		xTest, yTest = customLoopData(500, cfg.Seed+1)
	}
	if x.Shape().Dims() != 2 || y.Shape().Dims() != 2 || x.Shape()[0] != y.Shape()[0] {
		return fmt.Errorf("custom loop: want features [n, d] and labels [n, 1], got %v and %v", x.Shape(), y.Shape())
	}
	features := x.Shape()[1]

	// with strategy.scope(): the model, its optimizer and loss.
	layers.SetRandomSeed(cfg.Seed)
	exit := strategy.Scope()
	model, err := keras.NewSequential(
		layers.NewDense(10, layers.WithInputShape(features), layers.WithActivation("relu"), layers.WithName("dense")),
		layers.NewDense(1, layers.WithActivation("sigmoid"), layers.WithName("dense_1")))
	if err == nil {
		err = model.Compile(keras.CompileConfig{Optimizer: optimizers.NewRMSprop(optimizers.LearningRate(cfg.LearningRate)), Loss: losses.NewBinaryCrossentropy()})
	}
	exit()
	if err != nil {
		return fmt.Errorf("custom loop: %w", err)
	}
	if err := model.Build(1, features); err != nil {
		return fmt.Errorf("custom loop: %w", err)
	}
	// The variables go to the parameter servers (the chief's values).
	if err := strategy.Track(model.Weights()...); err != nil {
		return fmt.Errorf("custom loop: %w", err)
	}
	// The chief chooses the servers' optimizer (under TLS a worker may
	// not), as the optimizer made under strategy.scope() in TensorFlow.
	if strategy.IsCoordinator() {
		if err := strategy.SetOptimizer(model.Optimizer()); err != nil {
			return fmt.Errorf("custom loop: %w", err)
		}
	}

	coordinator, err := distribute.NewClusterCoordinator(strategy)
	if err != nil {
		return err
	}
	// Each worker reads its own shuffled, repeated pass of the data.
	perWorkerDataset := coordinator.CreatePerWorkerDataset(func() (any, error) {
		return newBatchIterator(x, y, cfg.Batch, cfg.Seed+uint64(strategy.TaskID())+1), nil
	})
	perWorkerIterator := perWorkerDataset.Iterator()

	// step_fn: forward, loss, gradients, apply (a push to the servers).
	trainStep := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		tape := keras.NewGradientTape()
		pred := model.Forward(in[0], true)
		loss := model.CompiledLoss(in[1], pred)
		grads, err := tape.Gradient(loss, model.TrainableVariables())
		if err != nil {
			return nil, err
		}
		return []ops.Tensor{loss, pred}, model.Optimizer().ApplyGradients(grads, model.TrainableVariables())
	})
	stepFn := coordinator.Function("custom_loop.step", func(args ...any) (any, error) {
		it, ok := args[0].(*batchIterator)
		if !ok {
			return nil, fmt.Errorf("step: argument is a %T, want the per-worker iterator", args[0])
		}
		bx, by := it.next()
		outs, err := strategy.Run(trainStep, bx, by)
		if err != nil {
			return nil, err
		}
		correct := countCorrect(outs[1].Data, by.Data)
		return []any{float64(outs[0].Float32()), correct, len(by.Data)}, nil
	})

	if !strategy.IsCoordinator() {
		return strategy.Join()
	}
	defer strategy.Close()

	var last *distribute.RemoteValue
	for epoch := range cfg.Epochs {
		var results []*distribute.RemoteValue
		for range cfg.StepsPerEpoch {
			rv, err := coordinator.Schedule(stepFn, perWorkerIterator)
			if err != nil {
				return err
			}
			results = append(results, rv)
			last = rv
		}
		if err := coordinator.Join(); err != nil {
			return err
		}
		var correct, total float64
		for _, rv := range results {
			v, err := rv.Fetch()
			if err != nil {
				return err
			}
			r := v.([]any)
			correct += r[1].(float64)
			total += r[2].(float64)
		}
		cfg.Print("Finished epoch %d, accuracy is %f.\n", epoch, correct/total)
	}
	if last != nil {
		v, err := last.Fetch()
		if err != nil {
			return err
		}
		cfg.Print("Final loss is %f\n", v.([]any)[0].(float64))
	}

	// Inline evaluation on the coordinator, on the servers' weights.
	if xTest != nil {
		if err := strategy.PullVariables(model.Weights()...); err != nil {
			return err
		}
		forward := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
			return []ops.Tensor{model.Forward(in[0], false)}, nil
		})
		xv, err := ops.ValueOf(xTest)
		if err != nil {
			return err
		}
		yv, err := ops.ValueOf(yTest)
		if err != nil {
			return err
		}
		outs, err := forward.CallValues(xv)
		if err != nil {
			return err
		}
		cfg.Print("Evaluation accuracy: %f\n", countCorrect(outs[0].Data, yv.Data)/float64(len(yv.Data)))
	}
	return nil
}

// countCorrect counts predictions (probabilities) on the right side of 0.5.
func countCorrect(pred, labels []float32) float64 {
	var n float64
	for i, p := range pred {
		if (p > 0.5) == (labels[i] > 0.5) {
			n++
		}
	}
	return n
}

// customLoopData is n rows of 5 features in [-1, 1) labelled 1 when a
// fixed linear score is positive.
func customLoopData(n int, seed uint64) (x, y *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 99))
	w := []float32{1, -2, 0.5, 1.5, -1}
	xs := make([]float32, n*5)
	ys := make([]float32, n)
	for i := range n {
		var s float32
		for j := range 5 {
			v := 2*r.Float32() - 1
			xs[i*5+j] = v
			s += w[j] * v
		}
		if s > 0 {
			ys[i] = 1
		}
	}
	return tensor.New(tensor.WithShape(n, 5), tensor.WithBacking(xs)), tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(ys))
}

// batchIterator yields batches of a fixed size from a shuffled, repeated
// pass over (x, y): a worker's per-worker iterator.
type batchIterator struct {
	x, y  []float32
	d, n  int
	batch int
	order []int
	pos   int
	r     *rand.Rand
}

func newBatchIterator(x, y *tensor.Dense, batch int, seed uint64) *batchIterator {
	n := x.Shape()[0]
	it := &batchIterator{x: x.Data().([]float32), y: y.Data().([]float32), d: x.Shape()[1], n: n, batch: batch, r: rand.New(rand.NewPCG(seed, 7))}
	it.order = it.r.Perm(n)
	return it
}

func (it *batchIterator) next() (x, y ops.Value) {
	x = ops.Value{Shape: ops.Shape{it.batch, it.d}, Data: make([]float32, it.batch*it.d)}
	y = ops.Value{Shape: ops.Shape{it.batch, 1}, Data: make([]float32, it.batch)}
	for i := range it.batch {
		if it.pos == it.n {
			it.order, it.pos = it.r.Perm(it.n), 0
		}
		row := it.order[it.pos]
		it.pos++
		copy(x.Data[i*it.d:(i+1)*it.d], it.x[row*it.d:(row+1)*it.d])
		y.Data[i] = it.y[row]
	}
	return x, y
}
