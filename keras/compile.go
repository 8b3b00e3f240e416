package keras

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// CompileConfig is model.compile's arguments. Optimizer, Loss and each
// metric may be an object or a Keras string name ("adam",
// "sparse_categorical_crossentropy", "accuracy").
type CompileConfig struct {
	// Optimizer is an optimizers.Optimizer or a name; nil means "rmsprop",
	// Keras' default.
	Optimizer any
	// Loss is a losses.Loss or a name. Required for Fit and Evaluate.
	Loss any
	// Metrics are metrics.LabelMetric values or names. "accuracy" / "acc"
	// resolve by the shapes of labels and predictions, as Keras does.
	Metrics []any
}

// Compile configures the model for training.
func (m *Model) Compile(cfg CompileConfig) error {
	switch o := cfg.Optimizer.(type) {
	case nil:
		opt, err := optimizers.Get("rmsprop")
		if err != nil {
			return err
		}
		m.optimizer = opt
	case string:
		opt, err := optimizers.Get(o)
		if err != nil {
			return fmt.Errorf("keras: Compile: %w", err)
		}
		m.optimizer = opt
	case optimizers.Optimizer:
		m.optimizer = o
	default:
		return fmt.Errorf("keras: Compile: optimizer must be an optimizers.Optimizer or a name, got %T", cfg.Optimizer)
	}
	switch l := cfg.Loss.(type) {
	case nil:
		m.loss = nil
	case string:
		loss, err := losses.Get(l)
		if err != nil {
			return fmt.Errorf("keras: Compile: %w", err)
		}
		m.loss = loss
	case losses.Loss:
		m.loss = l
	default:
		return fmt.Errorf("keras: Compile: loss must be a losses.Loss or a name, got %T", cfg.Loss)
	}
	for _, spec := range cfg.Metrics {
		switch s := spec.(type) {
		case string, metrics.LabelMetric:
		default:
			return fmt.Errorf("keras: Compile: metric must be a metrics.LabelMetric or a name, got %T", s)
		}
	}
	m.metricSpecs = append([]any(nil), cfg.Metrics...)
	m.metrics = nil
	m.lossTracker = metrics.NewMean(metrics.Name("loss"))
	m.compiled = true
	m.fns = stepFunctions{}
	return nil
}

// resolveMetrics creates the compiled metrics from their specs the first
// time labels and predictions are seen, as Keras resolves "accuracy" from
// their shapes.
func (m *Model) resolveMetrics(yTrue, yPred ops.Shape) error {
	if m.metrics != nil || len(m.metricSpecs) == 0 {
		return nil
	}
	for _, spec := range m.metricSpecs {
		switch s := spec.(type) {
		case metrics.LabelMetric:
			m.metrics = append(m.metrics, s)
		case string:
			var mt metrics.LabelMetric
			var err error
			if name := strings.ToLower(s); name == "accuracy" || name == "acc" {
				// Keras resolves "accuracy" by the shapes of labels and
				// predictions, and logs it under the name the user gave.
				mt = metrics.AccuracyFor(yTrue, yPred, metrics.Name(s))
			} else {
				mt, err = metrics.Get(s, metrics.Name(s))
			}
			if err != nil {
				return fmt.Errorf("keras: Compile: %w", err)
			}
			m.metrics = append(m.metrics, mt)
		}
	}
	return nil
}

// Metrics returns the compiled metrics (after the first step), the loss
// tracker first, as Keras' model.metrics.
func (m *Model) Metrics() []metrics.Metric {
	var out []metrics.Metric
	if m.lossTracker != nil {
		out = append(out, m.lossTracker)
	}
	for _, mt := range m.metrics {
		out = append(out, mt)
	}
	return out
}

// ResetMetrics resets the state of every metric.
func (m *Model) ResetMetrics() {
	for _, mt := range m.Metrics() {
		mt.ResetState()
	}
}

func (m *Model) logs(prefix string) Logs {
	var out Logs
	for _, mt := range m.Metrics() {
		out = append(out, LogItem{Name: prefix + mt.Name(), Value: mt.Result()})
	}
	return out
}

var errNotCompiled = errors.New("you must compile your model before training/testing: use model.Compile(...)")

// ComputeLoss returns the compiled loss of predictions against labels plus
// the model's regularization losses, in a trace: Keras' compute_loss.
//
// In a step of Fit (on any number of replicas) the loss is scaled for
// distribution: a sum_over_batch_size loss is summed over this replica's
// examples and divided by the global batch size, and regularization is
// divided by the number of replicas, so the gradients summed across
// replicas are those of one replica on the whole batch.
func (m *Model) ComputeLoss(yTrue, yPred ops.Tensor) ops.Tensor {
	loss, _ := m.computeLoss(yTrue, yPred)
	return loss
}

// computeLoss returns the loss to differentiate and the value to report
// (this replica's mean loss plus regularization, which the loss tracker
// weights by the local batch size).
func (m *Model) computeLoss(yTrue, yPred ops.Tensor) (loss, report ops.Tensor) {
	if m.loss == nil {
		panic(&ops.Error{Op: m.name, Msg: "no loss: compile the model with a loss"})
	}
	tr := yPred.Trace()
	var reg ops.Tensor
	for _, r := range m.RegularizationLosses(tr) {
		if reg.IsNone() {
			reg = r
		} else {
			reg = ops.Add(reg, r)
		}
	}
	plus := func(a, b ops.Tensor) ops.Tensor {
		if b.IsNone() {
			return a
		}
		return ops.Add(a, b)
	}
	scale, scaled := tr.Attr(lossScaleKey{}).(ops.Tensor)
	if !scaled || m.loss.GetReduction() == losses.ReductionSum {
		l := m.loss.Call(yTrue, yPred)
		if len(l.Shape()) != 0 {
			l = ops.Mean(l, false)
		}
		if scaled {
			n, _ := tr.Attr(numReplicasKey{}).(int)
			return plus(l, scaleReg(reg, n)), plus(l, reg)
		}
		return plus(l, reg), plus(l, reg)
	}
	per := m.loss.PerExample(yTrue, yPred)
	batch := max(yPred.Shape()[0], 1)
	perExample := float32(per.Shape().Size()) / float32(batch) // loss elements per example
	sum := ops.Sum(per, false)
	n, _ := tr.Attr(numReplicasKey{}).(int)
	loss = plus(ops.Scale(ops.Mul(sum, scale), 1/perExample), scaleReg(reg, n))
	report = plus(ops.Scale(sum, 1/(perExample*float32(batch))), reg)
	return loss, report
}

func scaleReg(reg ops.Tensor, n int) ops.Tensor {
	if reg.IsNone() || n <= 1 {
		return reg
	}
	return ops.Scale(reg, 1/float32(n))
}
