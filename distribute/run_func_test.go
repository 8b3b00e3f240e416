package distribute_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// plainLoop trains a small CNN on 2 replicas for one epoch with a step
// given to strategy.Run either as a plain Go function or wrapped by
// keras.NewFunction, ranging the distributed dataset with All, and returns
// the per-step losses and the final weights.
func plainLoop(t *testing.T, plain bool) ([]float32, [][]float32) {
	t.Helper()
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMirroredStrategy(devices(2)...)
	if err != nil {
		t.Fatal(err)
	}
	const globalBatch = 8
	layers.SetRandomSeed(5)
	exit := s.Scope()
	model, err := keras.NewSequential(
		layers.NewConv2D(3, 3, layers.WithActivation("relu"), layers.WithInputShape(6, 6, 1)),
		layers.NewFlatten(),
		layers.NewDense(10))
	if err != nil {
		t.Fatal(err)
	}
	optimizer := optimizers.NewSGD(optimizers.LearningRate(0.1))
	lossFn := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true), losses.Reduction(losses.ReductionNone))
	exit()
	trainStep := func(in []ops.Tensor) (ops.Tensor, error) {
		tape := keras.NewGradientTape()
		predictions := model.Forward(in[0], true)
		loss := distribute.ComputeAverageLoss(lossFn.Call(in[1], predictions), globalBatch)
		grads, err := tape.Gradient(loss, model.TrainableVariables())
		if err != nil {
			return ops.Tensor{}, err
		}
		return loss, optimizer.ApplyGradients(grads, model.TrainableVariables())
	}
	var step any = trainStep
	var traced *keras.Function
	if !plain {
		traced = keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
			l, err := trainStep(in)
			return []ops.Tensor{l}, err
		})
		step = traced
	}
	x, y := images(20, 6, 6, 9)
	ds, err := datasets.FromTensorSlices(x, y)
	if err != nil {
		t.Fatal(err)
	}
	dist := s.ExperimentalDistributeDataset(ds.Batch(globalBatch))
	var stepLosses []float32
	for batch := range dist.All(context.Background()) {
		perReplica, err := s.Run(step, batch)
		if err != nil {
			t.Fatal(err)
		}
		loss, err := s.Reduce(distribute.Sum, perReplica[0], distribute.AxisNone)
		if err != nil {
			t.Fatal(err)
		}
		stepLosses = append(stepLosses, loss.Data[0])
	}
	if err := dist.Err(); err != nil {
		t.Fatal(err)
	}
	var weights [][]float32
	for _, v := range model.Weights() {
		weights = append(weights, v.Numpy())
	}
	if fn, err := distribute.StepFunction(step); err != nil || fn.Traces() != 4 {
		// 2 replicas, each with 2 local shapes (4 rows, then the last batch's 2).
		t.Errorf("the step was traced %v times (%v), want once per replica and shape (4)", fn.Traces(), err)
	}
	return stepLosses, weights
}

// TestRunPlainFunction: a plain Go step function run by strategy.Run trains
// exactly as the same step wrapped by keras.NewFunction (the old form),
// traced once per replica and shape.
func TestRunPlainFunction(t *testing.T) {
	plainLosses, plainWeights := plainLoop(t, true)
	fnLosses, fnWeights := plainLoop(t, false)
	if len(plainLosses) != 3 || !slices.Equal(plainLosses, fnLosses) {
		t.Fatalf("losses: plain %v, keras.Function %v (want 3 equal steps)", plainLosses, fnLosses)
	}
	for i := range plainWeights {
		if !slices.Equal(plainWeights[i], fnWeights[i]) {
			t.Fatalf("weight %d differs", i)
		}
	}
}

func TestStepFunctionErrors(t *testing.T) {
	var nilFn func([]ops.Tensor) error
	var nilKeras *keras.Function
	for name, fn := range map[string]any{
		"nil":          nil,
		"nil func":     nilFn,
		"nil Function": nilKeras,
		"wrong type":   func(int) error { return nil },
		"string":       "step",
	} {
		if _, err := distribute.StepFunction(fn); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	s, err := distribute.NewMirroredStrategy(devices(1)...) // /cpu:0 always exists
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(func(int) {}, nil); err == nil || !strings.Contains(err.Error(), "func(int)") {
		t.Errorf("Run with a func(int): %v", err)
	}
	// Each closure is its own step; one closure passed twice is one.
	mk := func(k float32) func([]ops.Tensor) (ops.Tensor, error) {
		return func(in []ops.Tensor) (ops.Tensor, error) { return ops.Scale(in[0], k), nil }
	}
	a, b := mk(1), mk(2)
	fa, _ := distribute.StepFunction(a)
	fb, _ := distribute.StepFunction(b)
	fa2, _ := distribute.StepFunction(a)
	if fa == fb || fa != fa2 {
		t.Errorf("step cache: distinct closures share %v, one closure got two (%v, %v)", fa == fb, fa, fa2)
	}
}
