package keras

import (
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

// TrainStepper is implemented by a type that replaces Keras' train_step:
// given the batch (model inputs, then labels) in a traced step, it computes
// the loss, applies gradients and updates metrics, and returns the loss.
// Fit logs the model's metrics ([Model.Metrics], or the custom type's own
// Metrics method); when the model was compiled without a loss, the
// returned loss is logged as "loss".
type TrainStepper interface {
	TrainStep(data []ops.Tensor) (ops.Tensor, error)
}

// TestStepper replaces Keras' test_step.
type TestStepper interface {
	TestStep(data []ops.Tensor) (ops.Tensor, error)
}

// LogsTrainStepper is a train step that returns its logs, as Keras 3's
// train_step returns {m.name: m.result() for m in self.metrics}: after
// every step Fit logs the result of each metric in the returned
// [StepLogs], and nothing else.
type LogsTrainStepper interface {
	TrainStep(data []ops.Tensor) (StepLogs, error)
}

// LogsTestStepper is a test step that returns its logs; see
// [LogsTrainStepper].
type LogsTestStepper interface {
	TestStep(data []ops.Tensor) (StepLogs, error)
}

// MetricsLister is Keras' model.metrics property. A custom type given to
// [Model.Override] that defines its own Metrics method overrides the
// property: Fit and Evaluate reset those metrics at the start of every
// epoch (and evaluation) and log them.
type MetricsLister interface {
	Metrics() []metrics.Metric
}

// StepLogs are the logs a custom step returns, in order. Their values are
// read after each step (a traced step has no values yet), so an entry names
// a metric whose result is logged.
type StepLogs []StepLog

// StepLog is one entry of [StepLogs]: the result of Metric, logged under
// Name (the metric's name when empty).
type StepLog struct {
	Name   string
	Metric metrics.Metric
}

// MetricLogs are the logs {m.name: m.result() for m in ms}.
func MetricLogs(ms ...metrics.Metric) StepLogs {
	out := make(StepLogs, 0, len(ms))
	for _, mt := range ms {
		out = append(out, StepLog{Name: mt.Name(), Metric: mt})
	}
	return out
}

// customSteps is what Override registered.
type customSteps struct {
	train, test  func(data []ops.Tensor) (ops.Tensor, StepLogs, error)
	trainReturns bool // train returns the loss (TrainStepper), not logs
	metrics      MetricsLister
	// trainLogs and testLogs are the logs the traced steps returned (nil:
	// the model's metrics); testing says an evaluation is running.
	trainLogs, testLogs StepLogs
	testing             bool
}

// Override makes Fit and Evaluate call custom's TrainStep and TestStep
// (whichever it implements, in the form of [TrainStepper] or
// [LogsTrainStepper]) instead of the model's own: Keras' "customizing what
// happens in fit". Go has no virtual methods, so a type that embeds *Model
// registers itself:
//
//	type CustomModel struct{ *keras.Model }
//
//	func (m CustomModel) TrainStep(data []ops.Tensor) (keras.StepLogs, error) {
//		x, y := data[0], data[1]
//		tape := keras.NewGradientTape()
//		yPred := m.Forward(x, true)
//		loss := m.ComputeLoss(y, yPred)
//		grads, err := tape.Gradient(loss, m.TrainableVariables())
//		...
//		err = m.Optimizer().ApplyGradients(grads, m.TrainableVariables())
//		for _, mt := range m.Metrics() {
//			if mt.Name() == "loss" {
//				mt.UpdateState(loss)
//			} else {
//				mt.UpdateState(y, yPred)
//			}
//		}
//		return keras.MetricLogs(m.Metrics()...), err
//	}
//
//	custom := CustomModel{model}
//	model.Override(custom)
//
// If the custom type defines its own Metrics method (Keras: overriding the
// metrics property), Fit resets and logs those metrics instead of the
// compiled ones. The custom step runs on every replica under a
// distribution strategy, like the built-in one.
func (m *Model) Override(custom any) {
	if m == nil {
		return
	}
	m.custom = customSteps{}
	switch c := custom.(type) {
	case TrainStepper:
		m.custom.train = func(d []ops.Tensor) (ops.Tensor, StepLogs, error) {
			loss, err := c.TrainStep(d)
			return loss, nil, err
		}
		m.custom.trainReturns = true
	case LogsTrainStepper:
		m.custom.train = func(d []ops.Tensor) (ops.Tensor, StepLogs, error) {
			logs, err := c.TrainStep(d)
			return ops.Tensor{}, logs, err
		}
	}
	switch c := custom.(type) {
	case TestStepper:
		m.custom.test = func(d []ops.Tensor) (ops.Tensor, StepLogs, error) {
			loss, err := c.TestStep(d)
			return loss, nil, err
		}
	case LogsTestStepper:
		m.custom.test = func(d []ops.Tensor) (ops.Tensor, StepLogs, error) {
			logs, err := c.TestStep(d)
			return ops.Tensor{}, logs, err
		}
	}
	// A type embedding *Model always has Metrics; when it is the promoted
	// one the list is the model's own, so keeping it changes nothing.
	m.custom.metrics, _ = custom.(MetricsLister)
	m.fns = stepFunctions{}
}

// trainStep runs the custom or the built-in train step in a trace; the
// loss it returns is None for a step that returns logs.
func (m *Model) trainStep(data []ops.Tensor) (ops.Tensor, error) {
	if m.custom.train == nil {
		return m.TrainStep(data)
	}
	m.prepareMetrics(data)
	loss, logs, err := m.custom.train(data)
	if err != nil {
		return ops.Tensor{}, err
	}
	m.custom.trainLogs = logs
	if m.custom.trainReturns && m.loss == nil && !loss.IsNone() && len(data) > 0 && len(data[0].Shape()) > 0 {
		// No compiled loss fed the "loss" metric: log the step's own.
		red := loss
		if len(red.Shape()) != 0 {
			red = ops.Mean(red, false)
		}
		m.trackLoss(red, data[0].Shape()[0])
	}
	return loss, nil
}

func (m *Model) testStep(data []ops.Tensor) (ops.Tensor, error) {
	if m.custom.test == nil {
		return m.TestStep(data)
	}
	m.prepareMetrics(data)
	loss, logs, err := m.custom.test(data)
	if err != nil {
		return ops.Tensor{}, err
	}
	m.custom.testLogs = logs
	return loss, nil
}

// prepareMetrics creates the compiled metrics before a custom step runs,
// from the labels' shapes and the model's output shapes, as Keras builds
// its compiled metrics before the first step, so the step finds them in
// [Model.Metrics]: shared ones and per-output ones (MetricsByOutput).
func (m *Model) prepareMetrics(data []ops.Tensor) {
	if m.metrics != nil || len(m.metricSpecs)+len(m.weightedSpecs) == 0 && m.outputMetricSpecs == nil || len(m.outputs) == 0 {
		return
	}
	n, k := m.nInputs(), len(m.outputs)
	if len(data) < n+k {
		return // the step reports the missing labels itself
	}
	ys, preds := make([]ops.Shape, k), make([]ops.Shape, k)
	for i, o := range m.outputs {
		ys[i] = data[n+i].Shape()
		preds[i] = o.Shape()
		if len(preds[i]) > 0 && len(ys[i]) > 0 {
			preds[i][0] = ys[i][0]
		}
	}
	if err := m.resolveMetrics(ys, preds); err != nil {
		panic(&ops.Error{Op: m.name, Msg: err.Error()})
	}
}

// CompiledLoss is Keras 2's compiled_loss in a custom step: the compiled
// loss plus regularization (scaled for distribution, see ComputeLoss), with
// the "loss" metric updated.
func (m *Model) CompiledLoss(yTrue, yPred ops.Tensor) ops.Tensor {
	m.mustUsable("CompiledLoss")
	loss, report := m.computeLoss(yTrue, yPred)
	m.trackLoss(report, yTrue.Shape()[0])
	return loss
}

// UpdateCompiledMetrics is compiled_metrics.update_state in a custom step.
func (m *Model) UpdateCompiledMetrics(yTrue, yPred ops.Tensor) {
	m.mustUsable("UpdateCompiledMetrics")
	if err := m.resolveMetrics([]ops.Shape{yTrue.Shape()}, []ops.Shape{yPred.Shape()}); err != nil {
		panic(&ops.Error{Op: m.name, Msg: err.Error()})
	}
	for i, mt := range m.metrics {
		if m.metricOutput[i] == 0 {
			mt.UpdateState(yTrue, yPred)
		}
	}
}
