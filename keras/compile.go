package keras

import (
	"errors"
	"fmt"
	"slices"
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
	// Loss is a losses.Loss or a name. Fit and Evaluate need it unless a
	// custom step (see Model.Override) computes its own loss. A model with
	// several outputs takes one for all of them, a []any ([]string,
	// []losses.Loss) with one per output in output order, or a
	// map[string]any (map[string]string, map[string]losses.Loss) by
	// output name, as Keras' loss={"out_a": ..., "out_b": ...}.
	Loss any
	// Metrics are metrics.LabelMetric values or names. "accuracy" / "acc"
	// resolve by the shapes of labels and predictions, as Keras does. A
	// model with several outputs computes a flat list's metrics on every
	// output, logged as "<output>_<metric>"; a list of one list per
	// output ([]any{[]any{"accuracy"}, []any{"mae"}}, Keras'
	// metrics=[["accuracy"], ["mae"]]) or MetricsByOutput gives each
	// output its own.
	Metrics []any
	// MetricsByOutput gives each output its metrics by output name, as
	// Keras' metrics={"out_a": ["accuracy"], "out_b": ["mae"]}; not with
	// a per-output Metrics list.
	MetricsByOutput map[string][]any
	// WeightedMetrics are Keras' weighted_metrics: metrics, as Metrics,
	// updated with the sample weights of Fit and Evaluate (SampleWeight,
	// ClassWeight), where those of Metrics are not, as in Keras 3. A name
	// also in Metrics is logged as "weighted_<name>".
	WeightedMetrics []any
	// WeightedMetricsByOutput is WeightedMetrics by output name.
	WeightedMetricsByOutput map[string][]any
	// LossWeights weigh the losses of a model's outputs (default 1 each),
	// in output order.
	LossWeights []float64
	// LossWeightsByOutput weighs them by output name, as Keras'
	// loss_weights={"out_a": 1.0, "out_b": 0.5} (an output left out: 1);
	// not with LossWeights.
	LossWeightsByOutput map[string]float64
	// StepsPerExecution is Keras' steps_per_execution: Fit and Evaluate
	// run this many batches per execution and call the batch callbacks
	// (OnTrainBatchBegin/End, OnTestBatchBegin/End) and update the
	// progress bar once per execution, at its first and last batch, as
	// Keras does (for a short last execution Keras reports the batch index
	// the execution would have ended at, past the epoch's last; gokeras
	// the last batch run). 0 means 1. The numbers are those of 1.
	StepsPerExecution int
}

// Compile configures the model for training.
func (m *Model) Compile(cfg CompileConfig) error {
	if err := m.usable("Compile"); err != nil {
		return err
	}
	if err := m.checkScope(); err != nil {
		return err
	}
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
	m.optimizer = m.autoLossScale(m.optimizer) // mixed_compile.go: mixed_float16
	if cfg.StepsPerExecution < 0 {
		return fmt.Errorf("keras: Compile: StepsPerExecution is %d; want 1 or more (0: 1)", cfg.StepsPerExecution)
	}
	m.outputLosses, m.lossWeights = nil, nil
	names := m.OutputNames()
	if list, ok := cfg.Loss.([]string); ok { // one name per output
		cfg.Loss = toAnys(list)
	}
	if list, ok := cfg.Loss.([]losses.Loss); ok {
		cfg.Loss = toAnys(list)
	}
	if byName, ok, err := lossesByName(cfg.Loss, names); err != nil {
		return fmt.Errorf("keras: Compile: %w", err)
	} else if ok {
		cfg.Loss = byName
	}
	if cfg.LossWeightsByOutput != nil {
		if cfg.LossWeights != nil {
			return errors.New("keras: Compile: give LossWeights or LossWeightsByOutput, not both")
		}
		ws := make([]float64, len(names))
		for i := range ws {
			ws[i] = 1
		}
		for k, w := range cfg.LossWeightsByOutput {
			i := slices.Index(names, k)
			if i < 0 {
				return fmt.Errorf("keras: Compile: LossWeightsByOutput names %q; the model's outputs are %v", k, names)
			}
			ws[i] = w
		}
		cfg.LossWeights = ws
	}
	perOut, err := metricsByOutput("Metrics", cfg.Metrics, cfg.MetricsByOutput, names)
	if err != nil {
		return fmt.Errorf("keras: Compile: %w", err)
	}
	perOutW, err := metricsByOutput("WeightedMetrics", cfg.WeightedMetrics, cfg.WeightedMetricsByOutput, names)
	if err != nil {
		return fmt.Errorf("keras: Compile: %w", err)
	}
	if perOut != nil || perOutW != nil {
		if perOut == nil {
			perOut = make([][]any, len(names))
		}
		if perOutW == nil {
			perOutW = make([][]any, len(names))
		}
		cfg.Metrics, cfg.WeightedMetrics = nil, nil
		for _, l := range append(append([][]any(nil), perOut...), perOutW...) {
			cfg.Metrics = append(cfg.Metrics, l...) // checked below
		}
	}
	if list, ok := cfg.Loss.([]any); ok {
		if len(list) != len(m.outputs) && m.Built() {
			return fmt.Errorf("keras: Compile: %d losses for %d outputs", len(list), len(m.outputs))
		}
		for i, l := range list {
			lf, err := resolveLoss(l)
			if err != nil {
				return fmt.Errorf("keras: Compile: loss %d: %w", i, err)
			}
			m.outputLosses = append(m.outputLosses, lf)
		}
		if len(m.outputLosses) > 0 {
			cfg.Loss = m.outputLosses[0]
		}
	}
	if cfg.LossWeights != nil {
		if m.Built() && len(cfg.LossWeights) != len(m.outputs) {
			return fmt.Errorf("keras: Compile: %d loss weights for %d outputs", len(cfg.LossWeights), len(m.outputs))
		}
		m.lossWeights = append([]float64(nil), cfg.LossWeights...)
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
	for _, spec := range append(append([]any(nil), cfg.Metrics...), cfg.WeightedMetrics...) {
		switch s := spec.(type) {
		case string, metrics.LabelMetric:
		default:
			return fmt.Errorf("keras: Compile: metric must be a metrics.LabelMetric or a name, got %T", s)
		}
	}
	m.metricSpecs = append([]any(nil), cfg.Metrics...)
	m.weightedSpecs = append([]any(nil), cfg.WeightedMetrics...)
	m.outputMetricSpecs, m.outputWeightedSpecs = perOut, perOutW
	if perOut != nil {
		m.metricSpecs = nil // resolved per output, see resolveMetrics
	}
	m.stepsPerExecution = max(cfg.StepsPerExecution, 1)
	m.metricWeighted = nil
	m.metrics, m.metricOutput, m.outputLossTrackers = nil, nil, nil
	m.lossTracker = metrics.NewMean(metrics.Name("loss"))
	m.compiled = true
	m.fns = stepFunctions{}
	return nil
}

// resolveMetrics creates the compiled metrics from their specs the first
// time labels and predictions are seen, as Keras resolves "accuracy" from
// their shapes. With several outputs every metric is made once per output,
// prefixed with the output layer's name.
func (m *Model) resolveMetrics(ys, preds []ops.Shape) error {
	if m.metrics != nil || len(m.metricSpecs)+len(m.weightedSpecs) == 0 && m.outputMetricSpecs == nil {
		return nil
	}
	multi := len(preds) > 1
	for o := range preds {
		prefix := ""
		if multi {
			prefix = m.outputs[o].Node().Layer.Name() + "_"
		}
		plain, weightedSpecs := m.metricSpecs, m.weightedSpecs
		if m.outputMetricSpecs != nil {
			if o >= len(m.outputMetricSpecs) {
				return fmt.Errorf("keras: Compile: metrics for %d outputs, the model has %d", len(m.outputMetricSpecs), len(preds))
			}
			plain, weightedSpecs = m.outputMetricSpecs[o], m.outputWeightedSpecs[o]
		}
		for j, spec := range append(append([]any(nil), plain...), weightedSpecs...) {
			weighted := j >= len(plain)
			switch s := spec.(type) {
			case metrics.LabelMetric:
				if multi && o > 0 && m.outputMetricSpecs == nil {
					return fmt.Errorf("keras: Compile: metric object %q cannot serve %d outputs; give names or one object per output", s.Name(), len(preds))
				}
				m.metrics = append(m.metrics, s)
				m.metricOutput, m.metricWeighted = append(m.metricOutput, o), append(m.metricWeighted, weighted)
			case string:
				var mt metrics.LabelMetric
				var err error
				if name := strings.ToLower(s); name == "accuracy" || name == "acc" {
					// Keras resolves "accuracy" by the shapes of labels
					// and predictions, and logs it under the name given.
					mt = metrics.AccuracyFor(ys[o], preds[o], metrics.Name(prefix+weightedNameIn(s, weighted, plain)))
				} else {
					mt, err = metrics.Get(s, metrics.Name(prefix+weightedNameIn(s, weighted, plain)))
				}
				if err != nil {
					return fmt.Errorf("keras: Compile: %w", err)
				}
				m.metrics = append(m.metrics, mt)
				m.metricOutput, m.metricWeighted = append(m.metricOutput, o), append(m.metricWeighted, weighted)
			}
		}
	}
	return nil
}

// Metrics returns the loss tracker ("loss"), the per-output loss trackers
// and the compiled metrics, as Keras' model.metrics. The compiled metrics
// are made when Fit or Evaluate first sees labels and predictions, before
// the first step, so a custom step finds them here.
func (m *Model) Metrics() []metrics.Metric {
	if m == nil {
		return nil
	}
	var out []metrics.Metric
	if m.lossTracker != nil {
		out = append(out, m.lossTracker)
	}
	for _, mt := range m.outputLossTrackers {
		out = append(out, mt)
	}
	for _, mt := range m.metrics {
		out = append(out, mt)
	}
	return out
}

// ResetMetrics resets the state of every metric: those of Keras'
// model.metrics, overridden by a custom type's Metrics method (see
// [Model.Override]).
func (m *Model) ResetMetrics() {
	if m == nil {
		return
	}
	for _, mt := range m.metricList() {
		mt.ResetState()
	}
}

func (m *Model) logs(prefix string) Logs {
	out := Logs{}
	for _, e := range m.logEntries() {
		out[prefix+e.name] = e.mt.Result()
	}
	return out
}

func toAnys[T any](list []T) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

// weightedNameIn is the name of a weighted metric: Keras logs one whose
// name is also among the plain metrics (of its output) as
// "weighted_<name>".
func weightedNameIn(name string, weighted bool, plain []any) string {
	if weighted && slices.Contains(plain, any(name)) {
		return "weighted_" + name
	}
	return name
}

// lossesByName turns a map of losses by output name into the per-output
// list (ok false: loss is not a map). Every output needs a loss (Keras'
// None for an output without one is not supported yet); a name that is
// no output is an error.
func lossesByName(loss any, names []string) (list []any, ok bool, err error) {
	byName := map[string]any{}
	switch l := loss.(type) {
	case map[string]any:
		byName = l
	case map[string]string:
		for k, v := range l {
			byName[k] = v
		}
	case map[string]losses.Loss:
		for k, v := range l {
			byName[k] = v
		}
	default:
		return nil, false, nil
	}
	list = make([]any, len(names))
	for k, v := range byName {
		i := slices.Index(names, k)
		if i < 0 {
			return nil, true, fmt.Errorf("the loss map names %q; the model's outputs are %v", k, names)
		}
		list[i] = v
	}
	for i := range list {
		if list[i] == nil {
			return nil, true, fmt.Errorf("the loss map has no loss for output %q (keys %v)", names[i], sortedKeys(byName))
		}
	}
	return list, true, nil
}

// metricsByOutput returns one metric list per output from a per-output
// Metrics list (every element a []any or []string, one per output) or
// from a map by output name; nil when the metrics are a flat list for
// every output.
func metricsByOutput(field string, flat []any, byName map[string][]any, names []string) ([][]any, error) {
	nested := false
	for _, s := range flat {
		switch s.(type) {
		case []any, []string:
			nested = true
		}
	}
	if byName != nil {
		if nested {
			return nil, fmt.Errorf("give %s as one list per output or %sByOutput, not both", field, field)
		}
		if len(flat) > 0 {
			return nil, fmt.Errorf("give %s (for every output) or %sByOutput, not both", field, field)
		}
		out := make([][]any, len(names))
		for k, v := range byName {
			i := slices.Index(names, k)
			if i < 0 {
				return nil, fmt.Errorf("%sByOutput names %q; the model's outputs are %v", field, k, names)
			}
			out[i] = v
		}
		return out, nil
	}
	if !nested {
		return nil, nil
	}
	if len(flat) != len(names) {
		return nil, fmt.Errorf("%s has %d lists for the model's %d outputs %v", field, len(flat), len(names), names)
	}
	out := make([][]any, len(names))
	for i, s := range flat {
		switch s := s.(type) {
		case []any:
			out[i] = s
		case []string:
			for _, n := range s {
				out[i] = append(out[i], n)
			}
		case nil:
		default:
			return nil, fmt.Errorf("%s[%d] is a %T; with one list per output every element must be a list", field, i, s)
		}
	}
	return out, nil
}

func resolveLoss(l any) (losses.Loss, error) {
	switch l := l.(type) {
	case string:
		return losses.Get(l)
	case losses.Loss:
		return l, nil
	}
	return nil, fmt.Errorf("a loss must be a losses.Loss or a name, got %T", l)
}

var errNotCompiled = errors.New("you must compile your model before training/testing: use model.Compile(...)")

// errNoLoss is Keras' error for a model compiled without a loss whose
// steps need one (no custom step computes its own).
var errNoLoss = errors.New("No loss to compute. Provide a `Loss` argument in `Compile()`, or a custom TrainStep/TestStep that computes its own (see Model.Override)")

// ComputeLoss returns the compiled loss of predictions against labels plus
// the model's regularization losses, in a trace: Keras' compute_loss.
//
// In a step of Fit (on any number of replicas) the loss is scaled for
// distribution: a sum_over_batch_size loss is summed over this replica's
// examples and divided by the global batch size, and regularization is
// divided by the number of replicas, so the gradients summed across
// replicas are those of one replica on the whole batch.
//
// An optional sampleWeight (one weight per example) weighs the loss, as
// Keras' compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight).
func (m *Model) ComputeLoss(yTrue, yPred ops.Tensor, sampleWeight ...ops.Tensor) ops.Tensor {
	m.mustUsable("ComputeLoss")
	if len(sampleWeight) > 1 {
		panic(&ops.Error{Op: m.name, Msg: fmt.Sprintf("ComputeLoss takes one sample weight tensor, got %d", len(sampleWeight))})
	}
	loss, _, _ := m.computeLosses([]ops.Tensor{yTrue}, []ops.Tensor{yPred}, sampleWeight)
	return loss
}

// computeLoss returns the loss to differentiate and the value to report
// (this replica's mean loss plus regularization, which the loss tracker
// weights by the local batch size).
func (m *Model) computeLoss(yTrue, yPred ops.Tensor) (loss, report ops.Tensor) {
	loss, report, _ = m.computeLosses([]ops.Tensor{yTrue}, []ops.Tensor{yPred}, nil)
	return loss, report
}

// computeLosses is computeLoss over every output: the weighted sum of each
// output's loss, plus regularization; parts are the outputs' reported
// losses (for the per-output "<name>_loss" logs). sws holds each
// output's sample weights (nil or none: unweighted), one per example (see
// losses.ReduceWeighted).
func (m *Model) computeLosses(ys, preds, sws []ops.Tensor) (loss, report ops.Tensor, parts []ops.Tensor) {
	if m.loss == nil {
		// Compiled without a loss: the losses the model adds (ops.AddLoss,
		// regularizers) are the objective, as Keras' compute_loss sums
		// model.losses; with none, Keras' "No loss to compute".
		tr := preds[0].Trace()
		var reg ops.Tensor
		for _, r := range m.Losses(tr) {
			reg = plus(reg, r)
		}
		if reg.IsNone() {
			panic(&ops.Error{Op: m.name, Msg: errNoLoss.Error()})
		}
		n, _ := tr.Attr(numReplicasKey{}).(int)
		return scaleReg(reg, n), reg, nil
	}
	if len(ys) != len(preds) {
		panic(&ops.Error{Op: m.name, Msg: fmt.Sprintf("%d labels for %d outputs", len(ys), len(preds))})
	}
	tr := preds[0].Trace()
	var reg ops.Tensor
	for _, r := range m.Losses(tr) { // weight regularizers and ops.AddLoss losses: Keras adds model.losses
		reg = plus(reg, r)
	}
	n, _ := tr.Attr(numReplicasKey{}).(int)
	for i := range preds {
		var sw ops.Tensor
		if i < len(sws) {
			sw = sws[i]
		}
		l, r := m.dataLoss(m.lossFor(i), ys[i], preds[i], sw)
		parts = append(parts, r) // logged unweighted, as Keras does
		if w := m.lossWeight(i); w != 1 {
			l, r = ops.Scale(l, w), ops.Scale(r, w)
		}
		loss, report = plus(loss, l), plus(report, r)
	}
	return plus(loss, scaleReg(reg, n)), plus(report, reg), parts
}

// dataLoss is one output's loss: scaled for distribution inside Fit (see
// ComputeLoss), and the local mean to report.
func (m *Model) dataLoss(lf losses.Loss, yTrue, yPred, sw ops.Tensor) (loss, report ops.Tensor) {
	tr := yPred.Trace()
	scale, scaled := tr.Attr(lossScaleKey{}).(ops.Tensor)
	if !scaled || lf.GetReduction() == losses.ReductionSum {
		l := callWeighted(lf, yTrue, yPred, sw)
		if len(l.Shape()) != 0 {
			l = ops.Mean(l, false)
		}
		return l, l
	}
	per := losses.Weighted(lf.PerExample(yTrue, yPred), sw)
	batch := max(yPred.Shape()[0], 1)
	perExample := float32(per.Shape().Size()) / float32(batch) // loss elements per example
	sum := ops.Sum(per, false)
	return ops.Scale(ops.Mul(sum, scale), 1/perExample), ops.Scale(sum, 1/(perExample*float32(batch)))
}

func plus(a, b ops.Tensor) ops.Tensor {
	switch {
	case a.IsNone():
		return b
	case b.IsNone():
		return a
	}
	return ops.Add(a, b)
}

func (m *Model) lossFor(i int) losses.Loss {
	if m.outputLosses != nil {
		return m.outputLosses[i]
	}
	return m.loss
}

func (m *Model) lossWeight(i int) float32 {
	if m.lossWeights != nil {
		return float32(m.lossWeights[i])
	}
	return 1
}

func scaleReg(reg ops.Tensor, n int) ops.Tensor {
	if reg.IsNone() || n <= 1 {
		return reg
	}
	return ops.Scale(reg, 1/float32(n))
}
