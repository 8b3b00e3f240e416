// Command customizing_fit is keras.io's "Customizing what happens in
// fit()" (the TensorFlow guide), ported line by line: a model whose own
// train step updates the compiled metrics and returns their results; the
// lower-level version without a compiled loss (its own loss tracker and
// MAE metric, listed by a Metrics method, Keras' metrics property); sample
// weights in a custom step; a custom test step; and the end-to-end GAN on
// MNIST digits with two optimizers and keras.random drawing from a
// SeedGenerator.
//
//	go run ./examples/customizing_fit
//
// MNIST is read from Keras' cache (~/.keras/datasets or $KERAS_HOME), the
// folders listed in $GOKERAS_DATASETS, or -data.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/random"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// settings are the command's flags.
type settings struct {
	dataDir    string
	seed       int64
	ganBatches int // the guide trains the GAN on dataset.take(100)
	verbose    any
	out        io.Writer
}

func main() {
	var s settings
	flag.StringVar(&s.dataDir, "data", "", "folder holding MNIST (default: Keras' cache, then $GOKERAS_DATASETS)")
	flag.Int64Var(&s.seed, "seed", 0, "random seed of the weights and the data")
	flag.IntVar(&s.ganBatches, "gan-batches", 100, "batches the GAN trains on (the guide: 100)")
	peak := flag.Bool("verbose", false, "print the process's peak RSS at the end")
	flag.Parse()
	cli.MustCheck(cli.Positive("gan-batches"))
	s.verbose, s.out = keras.VerboseAuto, os.Stdout
	if err := run(s); err != nil {
		log.Fatal(err)
	}
	if *peak {
		cli.PrintPeakRSS(s.out)
	}
}

// parts are the guide's sections, in order.
var parts = []func(settings) error{firstExample, lowerLevel, sampleWeights, ownEvaluation, ganExample}

func run(s settings) error {
	layers.SetRandomSeed(uint64(s.seed))
	for _, part := range parts {
		if err := part(s); err != nil {
			return err
		}
	}
	return nil
}

// A first simple example.

// CustomModel overrides the train step; Fit calls it for every batch.
type CustomModel struct{ *keras.Model }

func (m CustomModel) TrainStep(data []ops.Tensor) (keras.StepLogs, error) {
	// Unpack the data. Its structure depends on your model and
	// on what you pass to `fit()`.
	x, y := data[0], data[1]

	tape := keras.NewGradientTape()
	yPred := m.Forward(x, true) // Forward pass
	// Compute the loss value
	// (the loss function is configured in `compile()`)
	loss := m.ComputeLoss(y, yPred)

	// Compute gradients
	trainableVars := m.TrainableVariables()
	gradients, err := tape.Gradient(loss, trainableVars)
	if err != nil {
		return nil, err
	}

	// Update weights
	if err := m.Optimizer().ApplyGradients(gradients, trainableVars); err != nil {
		return nil, err
	}

	// Update metrics (includes the metric that tracks the loss)
	for _, metric := range m.Metrics() {
		if metric.Name() == "loss" {
			metric.UpdateState(loss)
		} else {
			metric.UpdateState(y, yPred)
		}
	}

	// Return a dict mapping metric names to current value
	return keras.MetricLogs(m.Metrics()...), nil
}

// denseModel is keras.Input(shape=(32,)) -> keras.layers.Dense(1).
func denseModel() (*keras.Model, error) {
	inputs := layers.Input([]int{32})
	outputs := layers.Apply(layers.NewDense(1), inputs)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
}

// randomData is np.random.random((1000, 32)), np.random.random((1000, 1)).
func randomData() (x, y *tensor.Dense, err error) {
	if x, err = random.Uniform([]int{1000, 32}); err != nil {
		return nil, nil, err
	}
	y, err = random.Uniform([]int{1000, 1})
	return x, y, err
}

func firstExample(s settings) error {
	fmt.Fprintln(s.out, "## A first simple example")
	// Construct and compile an instance of CustomModel
	model, err := denseModel()
	if err != nil {
		return err
	}
	model.Override(CustomModel{model})
	if err := model.Compile(keras.CompileConfig{Optimizer: "adam", Loss: "mse", Metrics: []any{"mae"}}); err != nil {
		return err
	}

	// Just use `fit` as usual
	x, y, err := randomData()
	if err != nil {
		return err
	}
	_, err = model.Fit(x, y, keras.FitConfig{Epochs: 3, Verbose: s.verbose, Out: s.out})
	return err
}

// Going lower-level.

// LowLevelModel computes its own loss and metrics: only Compile's
// optimizer is used.
type LowLevelModel struct {
	*keras.Model
	lossTracker *metrics.Mean
	maeMetric   *metrics.MeanAbsoluteError
	lossFn      losses.Loss
}

func NewLowLevelModel(m *keras.Model) *LowLevelModel {
	return &LowLevelModel{
		Model:       m,
		lossTracker: metrics.NewMean(metrics.Name("loss")),
		maeMetric:   metrics.NewMeanAbsoluteError(metrics.Name("mae")),
		lossFn:      losses.NewMeanSquaredError(),
	}
}

func (m *LowLevelModel) TrainStep(data []ops.Tensor) (keras.StepLogs, error) {
	x, y := data[0], data[1]

	tape := keras.NewGradientTape()
	yPred := m.Forward(x, true) // Forward pass
	// Compute our own loss
	loss := m.lossFn.Call(y, yPred)

	// Compute gradients
	trainableVars := m.TrainableVariables()
	gradients, err := tape.Gradient(loss, trainableVars)
	if err != nil {
		return nil, err
	}

	// Update weights
	if err := m.Optimizer().ApplyGradients(gradients, trainableVars); err != nil {
		return nil, err
	}

	// Compute our own metrics
	m.lossTracker.UpdateState(loss)
	m.maeMetric.UpdateState(y, yPred)
	return keras.StepLogs{
		{Name: "loss", Metric: m.lossTracker},
		{Name: "mae", Metric: m.maeMetric},
	}, nil
}

// Metrics lists our Metric objects so that Fit resets them at the start
// of each epoch and Evaluate at its start (Keras' metrics property).
func (m *LowLevelModel) Metrics() []metrics.Metric {
	return []metrics.Metric{m.lossTracker, m.maeMetric}
}

func lowerLevel(s settings) error {
	fmt.Fprintln(s.out, "## Going lower-level")
	// Construct an instance of CustomModel
	inner, err := denseModel()
	if err != nil {
		return err
	}
	model := NewLowLevelModel(inner)
	model.Override(model)

	// We don't pass a loss or metrics here.
	if err := model.Compile(keras.CompileConfig{Optimizer: "adam"}); err != nil {
		return err
	}

	// Just use `fit` as usual -- you can use callbacks, etc.
	x, y, err := randomData()
	if err != nil {
		return err
	}
	_, err = model.Fit(x, y, keras.FitConfig{Epochs: 5, Verbose: s.verbose, Out: s.out})
	return err
}

// Supporting sample_weight & class_weight.

// WeightedModel unpacks sample weights from the data when Fit passes them.
type WeightedModel struct{ *keras.Model }

func (m WeightedModel) TrainStep(data []ops.Tensor) (keras.StepLogs, error) {
	// Unpack the data. Its structure depends on your model and
	// on what you pass to `fit()`.
	var x, y, sampleWeight ops.Tensor
	if len(data) == 3 {
		x, y, sampleWeight = data[0], data[1], data[2]
	} else {
		x, y = data[0], data[1]
	}
	weights := []ops.Tensor{}
	if !sampleWeight.IsNone() {
		weights = append(weights, sampleWeight)
	}

	tape := keras.NewGradientTape()
	yPred := m.Forward(x, true) // Forward pass
	// Compute the loss value.
	// The loss function is configured in `compile()`.
	loss := m.ComputeLoss(y, yPred, weights...)

	// Compute gradients
	trainableVars := m.TrainableVariables()
	gradients, err := tape.Gradient(loss, trainableVars)
	if err != nil {
		return nil, err
	}

	// Update weights
	if err := m.Optimizer().ApplyGradients(gradients, trainableVars); err != nil {
		return nil, err
	}

	// Update the metrics.
	// Metrics are configured in `compile()`.
	for _, metric := range m.Metrics() {
		if metric.Name() == "loss" {
			metric.UpdateState(loss)
		} else {
			metric.UpdateState(append([]ops.Tensor{y, yPred}, weights...)...)
		}
	}

	// Return a dict mapping metric names to current value.
	// Note that it will include the loss (tracked in self.metrics).
	return keras.MetricLogs(m.Metrics()...), nil
}

func sampleWeights(s settings) error {
	fmt.Fprintln(s.out, "## Supporting sample_weight & class_weight")
	// Construct and compile an instance of CustomModel
	model, err := denseModel()
	if err != nil {
		return err
	}
	model.Override(WeightedModel{model})
	if err := model.Compile(keras.CompileConfig{Optimizer: "adam", Loss: "mse", Metrics: []any{"mae"}}); err != nil {
		return err
	}

	// You can now use sample_weight argument
	x, y, err := randomData()
	if err != nil {
		return err
	}
	sw, err := random.Uniform([]int{1000, 1})
	if err != nil {
		return err
	}
	_, err = model.Fit(x, y, keras.FitConfig{SampleWeight: sw, Epochs: 3, Verbose: s.verbose, Out: s.out})
	return err
}

// Providing your own evaluation step.

// EvalModel overrides the test step, which Evaluate calls for every batch.
type EvalModel struct{ *keras.Model }

func (m EvalModel) TestStep(data []ops.Tensor) (keras.StepLogs, error) {
	// Unpack the data
	x, y := data[0], data[1]
	// Compute predictions
	yPred := m.Forward(x, false)
	// Updates the metrics tracking the loss
	loss := m.ComputeLoss(y, yPred)
	// Update the metrics.
	for _, metric := range m.Metrics() {
		if metric.Name() == "loss" {
			metric.UpdateState(loss)
		} else {
			metric.UpdateState(y, yPred)
		}
	}
	// Return a dict mapping metric names to current value.
	// Note that it will include the loss (tracked in self.metrics).
	return keras.MetricLogs(m.Metrics()...), nil
}

func ownEvaluation(s settings) error {
	fmt.Fprintln(s.out, "## Providing your own evaluation step")
	// Construct an instance of CustomModel
	model, err := denseModel()
	if err != nil {
		return err
	}
	model.Override(EvalModel{model})
	if err := model.Compile(keras.CompileConfig{Loss: "mse", Metrics: []any{"mae"}}); err != nil {
		return err
	}

	// Evaluate with our custom test_step
	x, y, err := randomData()
	if err != nil {
		return err
	}
	_, err = model.Evaluate(x, y, keras.EvaluateConfig{Verbose: s.verbose, Out: s.out})
	return err
}
