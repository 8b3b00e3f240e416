package keras

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// The values of FitConfig.Verbose, EvaluateConfig.Verbose and
// PredictConfig.Verbose, as Keras' verbose argument: "auto" (or leaving
// the field nil) is Keras' default, a progress bar; 0 is silent, 1 a
// progress bar, 2 one line per epoch. The field is an any, like Keras'
// argument, so that a port of verbose=0 writes Verbose: 0 and gets
// silence while the zero value of the config keeps Keras' default.
const (
	VerboseAuto   = "auto" // Keras' default: the progress bar
	VerboseSilent = 0      // Keras' verbose=0
	VerboseBar    = 1      // a progress bar
	VerboseEpoch  = 2      // one line per epoch
)

// verbosity resolves a Verbose field to 0, 1 or 2 (Keras' callback
// params["verbose"]).
func verbosity(what string, v any) (int, error) {
	switch v := v.(type) {
	case nil:
		return 1, nil
	case string:
		if v == VerboseAuto {
			return 1, nil
		}
	case int:
		if v >= 0 && v <= 2 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("keras: %s: Verbose is %#v; want \"auto\" (or nil, Keras' default: a progress bar), 0 (silent), 1 (a progress bar) or 2 (one line per epoch)", what, v)
}

// FitConfig is model.fit's keyword arguments. The zero value works:
// one epoch, batch size 32, shuffling, a progress bar. Negative counts and
// sizes, and a ValidationSplit outside [0, 1), are errors.
type FitConfig struct {
	Epochs    int // default 1
	BatchSize int // for array data; default 32. Datasets are batched already.
	Verbose   any // Keras' verbose: nil or "auto" (a bar, the default), 0 (silent), 1 or 2; see VerboseAuto
	Callbacks []Callback
	// ValidationSplit holds out the last fraction of array data for
	// validation (before shuffling).
	ValidationSplit float64
	// ValidationData is a *datasets.Dataset or NamedDataset, an {x, y}
	// pair ([]*tensor.Dense or [2]*tensor.Dense) or {x, y,
	// sample_weight} ([]*tensor.Dense or [3]*tensor.Dense) for a
	// single-input model, or []any{x, y} / []any{x, y, sample_weight}
	// with x, y and the weights in any form Fit takes them (slices in
	// model order, maps by name), as Keras' validation_data.
	ValidationData any
	// SampleWeight is Keras' sample_weight: one weight per example of x,
	// shape (n,) or (n, 1), a *tensor.Dense for every output, or one per
	// output as a []*tensor.Dense in output order or a
	// map[string]*tensor.Dense by output name (an output left out weighs
	// 1). The loss is sum(w*loss)/batch size (Keras'
	// sum_over_batch_size); CompileConfig.WeightedMetrics are weighted
	// means, CompileConfig.Metrics ignore the weights, as in Keras 3. A
	// ValidationSplit splits the weights with the rows. A dataset gives
	// its weights as a third component, (x, y, sample_weight).
	SampleWeight any
	// ClassWeight is Keras' class_weight: class index -> weight, turned
	// into sample weights of the training data from its labels (the argmax
	// of one-hot labels, else the label rounded; 1 for a class not in the
	// map). Only for single-output models, and not with SampleWeight.
	ClassWeight         map[int]float64
	NoShuffle           bool // Keras' shuffle=False
	InitialEpoch        int
	StepsPerEpoch       int // 0: a full pass over the data
	ValidationSteps     int
	ValidationBatchSize int
	// Seed seeds the per-epoch shuffling of array data.
	Seed uint64
	// Context stops Fit at the end of the current batch when cancelled.
	Context context.Context
	// Out receives the progress output (default os.Stdout).
	Out io.Writer
}

// InitialEpochSetter is implemented by callbacks that decide, in
// OnTrainBegin, the epoch Fit starts at (BackupAndRestore resuming an
// interrupted run): when InitialEpoch reports true, its epoch replaces
// FitConfig.InitialEpoch.
type InitialEpochSetter interface {
	InitialEpoch() (epoch int, ok bool)
}

// InitialStepSetter is implemented by callbacks that resume Fit in the
// middle of an epoch (BackupAndRestore restoring a backup made after a
// batch): when InitialStep reports true, Fit skips the first step batches
// of its initial epoch (they were trained before the backup) and trains
// from the next, so that the resumed run sees the batches the
// uninterrupted one would have. It is asked after InitialEpochSetter.
type InitialStepSetter interface {
	InitialStep() (step int, ok bool)
}

// EvaluateConfig is model.evaluate's keyword arguments. The zero value
// works (batch size 32, every batch); negative values are errors.
type EvaluateConfig struct {
	BatchSize int
	// SampleWeight weighs the examples, as FitConfig.SampleWeight.
	SampleWeight any
	Verbose      any // as FitConfig.Verbose
	Steps        int
	Callbacks    []Callback
	Context      context.Context
	Out          io.Writer
}

// PredictConfig is model.predict's keyword arguments. The zero value
// works (batch size 32, every batch); negative values are errors.
type PredictConfig struct {
	BatchSize int
	Verbose   any // as FitConfig.Verbose
	Steps     int
	Callbacks []Callback
	Context   context.Context
	Out       io.Writer
}

// nonNegative returns an error naming the first field whose value is
// negative; fields come in (name, value) pairs.
func nonNegative(what string, fields ...any) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if v := fields[i+1].(int); v < 0 {
			return fmt.Errorf("keras: %s: %s is %d; want 0 (the default) or more", what, fields[i], v)
		}
	}
	return nil
}

func (c FitConfig) validate() error {
	if err := nonNegative("Fit", "Epochs", c.Epochs, "BatchSize", c.BatchSize, "InitialEpoch", c.InitialEpoch,
		"StepsPerEpoch", c.StepsPerEpoch, "ValidationSteps", c.ValidationSteps, "ValidationBatchSize", c.ValidationBatchSize); err != nil {
		return err
	}
	if !(c.ValidationSplit >= 0 && c.ValidationSplit < 1) {
		return fmt.Errorf("keras: Fit: ValidationSplit is %v; want a fraction in [0, 1)", c.ValidationSplit)
	}
	return nil
}

// stepFunctions are the model's traced steps (tf.function'd train_step,
// test_step and predict_step), one per replica.
type stepFunctions struct {
	train, test, predict replicaFunctions
}

func (m *Model) nInputs() int { return max(len(m.inputs), 1) }

// guard turns panics raised while tracing (shape misuse) into errors.
func guard(what string, err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(*ops.Error); ok {
			*err = ops.Where("keras: "+what, e)
			return
		}
		panic(r)
	}
}

// ensureBuilt builds a Sequential model from the first batch's shape.
func (m *Model) ensureBuilt(batch []ops.Value) error {
	if m.Built() {
		return nil
	}
	if len(batch) == 0 || len(batch[0].Shape) == 0 {
		return errors.New("cannot build the model: no input shape")
	}
	return m.build(batch[0].Shape[1:])
}

func (m *Model) trainFunction() replicaFunctions {
	if m.fns.train == nil {
		n := m.strategy.NumReplicasInSync()
		m.fns.train = newReplicaFunctions(n, m.name+".train_step", true, func(tr *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
			// The last input is 1/global_batch, for the loss (see ComputeLoss).
			tr.SetAttr(lossScaleKey{}, in[len(in)-1])
			m.setGradientApplier(tr) // fit_distribution.go
			if ws, ok := m.strategy.(workerStrategy); ok {
				tr.SetAttr(numReplicasKey{}, ws.GlobalReplicas())
			} else {
				tr.SetAttr(numReplicasKey{}, n)
			}
			loss, err := m.trainStep(in[:len(in)-1])
			if loss.IsNone() {
				return nil, err // a custom step that returned logs
			}
			return []ops.Tensor{loss}, err
		})
	}
	return m.fns.train
}

// TrainStep is Keras' default train_step, traced: forward, the compiled
// loss, gradients, the optimizer update and the metrics. in holds the model
// inputs, then one label per output.
func (m *Model) TrainStep(in []ops.Tensor) (ops.Tensor, error) {
	if err := m.usable("TrainStep"); err != nil {
		return ops.Tensor{}, err
	}
	x, ys, sws, err := m.splitData(in, "training")
	if err != nil {
		return ops.Tensor{}, err
	}
	preds := m.Call(x, true)
	loss, err := m.lossAndMetrics(ys, preds, sws)
	if err != nil {
		return ops.Tensor{}, err
	}
	vars := m.TrainableVariables()
	grads, err := ops.Gradients(scaledLoss(m.optimizer, loss), vars) // mixed_compile.go
	if err != nil {
		return ops.Tensor{}, err
	}
	if err := m.applyGradients(grads, vars); err != nil { // fit_distribution.go
		return ops.Tensor{}, err
	}
	return loss, nil
}

// splitData cuts a step's inputs into the model inputs, the labels and
// the sample weights of each output (none when the data has none).
func (m *Model) splitData(in []ops.Tensor, what string) (x, ys, sws []ops.Tensor, err error) {
	n, k := m.nInputs(), m.nOutputs()
	if len(in) == n && m.loss == nil && len(m.metricSpecs) == 0 && len(m.weightedSpecs) == 0 && m.outputMetricSpecs == nil && m.outputWeightedSpecs == nil {
		// fit(x) of a model whose losses are its own (add_loss): no labels.
		return in, nil, nil, nil
	}
	if len(in) < n+k {
		return nil, nil, nil, fmt.Errorf("keras: %s: %s needs %d inputs and %d labels (one per output), got %d tensors: give y or a dataset of (x, y)", m.name, what, n, k, len(in))
	}
	if sws, err = sampleWeightsOf(in, n+k, k); err != nil {
		return nil, nil, nil, fmt.Errorf("keras: %s: %s: %w", m.name, what, err)
	}
	return in[:n], in[n : n+k], sws, nil
}

// lossAndMetrics computes the compiled loss and registers the loss
// trackers and metric updates; sws are each output's sample weights (nil
// or none: unweighted).
func (m *Model) lossAndMetrics(ys, preds, sws []ops.Tensor) (ops.Tensor, error) {
	yShapes, pShapes := make([]ops.Shape, len(ys)), make([]ops.Shape, len(preds))
	for i := range ys {
		yShapes[i], pShapes[i] = ys[i].Shape(), preds[i].Shape()
	}
	if err := m.resolveMetrics(yShapes, pShapes); err != nil {
		return ops.Tensor{}, err
	}
	loss, report, parts := m.computeLosses(ys, preds, sws)
	batch := preds[0].Shape()[0]
	m.trackLoss(report, batch)
	if len(preds) > 1 {
		if m.outputLossTrackers == nil {
			for _, o := range m.outputs {
				m.outputLossTrackers = append(m.outputLossTrackers, metrics.NewMean(metrics.Name(o.Node().Layer.Name()+"_loss")))
			}
		}
		for i, p := range parts {
			trackPerBatch(m.outputLossTrackers[i], p, batch)
		}
	}
	for i, mt := range m.metrics {
		o := m.metricOutput[i]
		var w ops.Tensor // Keras weighs only its weighted_metrics
		if i < len(m.metricWeighted) && m.metricWeighted[i] && o < len(sws) {
			w = sws[o]
		}
		if err := updateMetric(mt, ys[o], preds[o], w); err != nil {
			return ops.Tensor{}, fmt.Errorf("keras: %s: %w", m.name, err)
		}
	}
	return loss, nil
}

// trackLoss feeds the loss into the "loss" metric, weighted by the batch
// size as Keras 2 does, so the epoch's loss is the mean over examples.
func (m *Model) trackLoss(loss ops.Tensor, batch int) { trackInto(m.lossTracker, loss, batch) }

func trackInto(tracker *metrics.Mean, loss ops.Tensor, batch int) {
	loss.Trace().AddHook(ops.Hook{Name: tracker.Name(), Inputs: []ops.Tensor{loss}, Run: func(_ ops.ReplicaContext, v []ops.Value) error {
		tracker.UpdateScalar(float64(v[0].Data[0]), float64(batch))
		return nil
	}})
}

// trackPerBatch feeds an output's loss into its "<output>_loss" tracker
// as Keras 3 (TensorFlow backend) does: every global batch weighs the
// same, whatever its size (the per-output trackers are updated with the
// batch dimension, which is unknown in Keras' traced step), so a short
// last batch counts as much as a full one. In a step of Fit each replica
// weighs its part by its share of the global batch; elsewhere each
// replica's part weighs 1.
func trackPerBatch(tracker *metrics.Mean, loss ops.Tensor, batch int) {
	tr := loss.Trace()
	if scale, ok := tr.Attr(lossScaleKey{}).(ops.Tensor); ok {
		tr.AddHook(ops.Hook{Name: tracker.Name(), Inputs: []ops.Tensor{loss, scale}, Run: func(_ ops.ReplicaContext, v []ops.Value) error {
			tracker.UpdateScalar(float64(v[0].Data[0]), float64(batch)*float64(v[1].Data[0]))
			return nil
		}})
		return
	}
	trackInto(tracker, loss, 1)
}

// TestStep is Keras' default test_step: forward in inference mode, loss and
// metrics.
func (m *Model) TestStep(in []ops.Tensor) (ops.Tensor, error) {
	if err := m.usable("TestStep"); err != nil {
		return ops.Tensor{}, err
	}
	x, ys, sws, err := m.splitData(in, "evaluation")
	if err != nil {
		return ops.Tensor{}, err
	}
	return m.lossAndMetrics(ys, m.Call(x, false), sws)
}

func (m *Model) testFunction() replicaFunctions {
	if m.fns.test == nil {
		m.fns.test = newReplicaFunctions(m.strategy.NumReplicasInSync(), m.name+".test_step", false, func(tr *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
			loss, err := m.testStep(in)
			if loss.IsNone() {
				return nil, err
			}
			return []ops.Tensor{loss}, err
		})
	}
	return m.fns.test
}

func (m *Model) predictFunction() replicaFunctions {
	if m.fns.predict == nil {
		m.fns.predict = newReplicaFunctions(m.strategy.NumReplicasInSync(), m.name+".predict_step", false, func(tr *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
			return m.Call(in[:m.nInputs()], false), nil
		})
	}
	return m.fns.predict
}

// Fit trains the model, as model.fit. x is the inputs and y the labels:
// each a *tensor.Dense, a []*tensor.Dense in the model's input (output)
// order or a map[string]*tensor.Dense by input (output) name; or x is a
// *datasets.Dataset of (x, y) batches or a [NamedDataset], with y nil.
func (m *Model) Fit(x, y any, cfg FitConfig) (hist *History, err error) {
	if err := m.usable("Fit"); err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if ps, ok := m.asPS(); ok {
		return m.fitPS(ps, x, y, cfg) // fit_ps.go
	}
	if !m.compiled {
		return nil, fmt.Errorf("keras: Fit: %w", errNotCompiled)
	}
	if err := m.checkMirrored(); err != nil {
		return nil, fmt.Errorf("keras: Fit: %w", err)
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	epochs := max(cfg.Epochs, 1)
	verbose, err := verbosity("Fit", cfg.Verbose)
	if err != nil {
		return nil, err
	}
	train, val, err := m.fitSources(x, y, cfg)
	if err != nil {
		return nil, err
	}
	if err := needSteps("keras: Fit", train, cfg.StepsPerEpoch, "StepsPerEpoch"); err != nil {
		return nil, err
	}
	if err := needSteps("keras: Fit: validation_data", val, cfg.ValidationSteps, "ValidationSteps"); err != nil {
		return nil, err
	}
	steps := train.Steps()
	if cfg.StepsPerEpoch > 0 {
		steps = cfg.StepsPerEpoch
	}
	hist, cbs := m.fitCallbacks(cfg, epochs, steps, verbose)
	if err := cbs.event(func(c Callback, l Logs) error { return c.OnTrainBegin(l) }); err != nil {
		return hist, err
	}
	skip := 0
	for _, c := range cbs {
		if s, ok := c.(InitialEpochSetter); ok {
			if e, ok := s.InitialEpoch(); ok {
				cfg.InitialEpoch = e
			}
		}
		if s, ok := c.(InitialStepSetter); ok {
			if n, ok := s.InitialStep(); ok {
				skip = n
			}
		}
	}
	fn := m.trainFunction()
	epochLogs := Logs{}
	for epoch := cfg.InitialEpoch; epoch < epochs && !m.stopTraining; epoch++ {
		m.ResetMetrics()
		if err := cbs.event(func(c Callback, l Logs) error { return c.OnEpochBegin(epoch, l) }); err != nil {
			return hist, err
		}
		pass := train.Pass(ctx, epoch)
		step := 0
		// Resuming inside the epoch: its first batches were trained before
		// the backup. They are read and dropped, so the pass goes on with
		// the batch that came next (the same shuffle, the same shards).
		for ; step < skip; step++ {
			if _, ok := pass.Next(); !ok {
				err := pass.Err()
				pass.Close()
				if err == nil {
					err = fmt.Errorf("the epoch has fewer than the %d batches the backup says were trained", skip)
				}
				return hist, fmt.Errorf("keras: Fit: resuming epoch %d at batch %d: %w", epoch+1, skip, err)
			}
		}
		skip = 0
		spe := max(m.stepsPerExecution, 1)
		for cfg.StepsPerEpoch <= 0 || step < cfg.StepsPerEpoch {
			if err := ctx.Err(); err != nil {
				pass.Close()
				_ = cbs.each(func(c Callback) error { return c.OnTrainEnd(epochLogs) })
				return hist, fmt.Errorf("keras: Fit: stopped at epoch %d, batch %d: %w", epoch+1, step, err)
			}
			batch, ok := pass.Next()
			if !ok {
				break
			}
			// One execution: up to StepsPerExecution batches between the
			// batch callbacks, begin at its first, end at its last.
			begin := step
			if err := cbs.event(func(c Callback, l Logs) error { return c.OnTrainBatchBegin(begin, l) }); err != nil {
				pass.Close()
				return hist, err
			}
			for {
				if _, err := m.runReplicated(fn, batch, true); err != nil {
					pass.Close()
					return hist, ops.Where(fmt.Sprintf("keras: Fit: epoch %d, batch %d", epoch+1, step), err)
				}
				step++
				if step-begin >= spe || cfg.StepsPerEpoch > 0 && step >= cfg.StepsPerEpoch {
					break
				}
				if batch, ok = pass.Next(); !ok {
					break
				}
			}
			logs, err := m.workerLogs()
			if err != nil {
				pass.Close()
				return hist, ops.Where(fmt.Sprintf("keras: Fit: epoch %d, batch %d", epoch+1, step-1), err)
			}
			end := step - 1
			if err := cbs.each(func(c Callback) error { return c.OnTrainBatchEnd(end, logs) }); err != nil {
				pass.Close()
				return hist, err
			}
			if m.stopTraining {
				break // as Keras, e.g. TerminateOnNaN, stops after the batch
			}
		}
		err := pass.Err()
		pass.Close()
		if err != nil {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, err)
		}
		if step == 0 {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, errEmpty)
		}
		if epochLogs, err = m.workerLogs(); err != nil {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, err)
		}
		if val != nil {
			// Fit's callbacks see the validation's test events, as in
			// Keras (its params stay Fit's).
			vl, err := m.evaluateInFit(ctx, val, cfg.ValidationSteps, cbs)
			if err != nil {
				return hist, ops.Where("keras: Fit: validation", err)
			}
			for name, v := range vl {
				epochLogs["val_"+name] = v
			}
		}
		// One map for every callback, in order: what one sets, the
		// next ones (History and the progress bar last) see.
		if err := cbs.each(func(c Callback) error { return c.OnEpochEnd(epoch, epochLogs) }); err != nil {
			return hist, err
		}
	}
	// Keras' fit ends by finalize_variable_values: with use_ema the
	// weights become their moving averages (optimizers/options_common.go).
	if f, ok := m.optimizer.(interface{ FinalizeVariableValues([]*ops.Variable) }); ok {
		f.FinalizeVariableValues(m.TrainableVariables())
	}
	if err := cbs.each(func(c Callback) error { return c.OnTrainEnd(epochLogs) }); err != nil {
		return hist, err
	}
	return hist, nil
}

// Evaluate returns the loss and metrics of the model on the data, as
// model.evaluate(..., return_dict=True); logs.Items gives them in display
// order.
func (m *Model) Evaluate(x, y any, cfg EvaluateConfig) (Logs, error) {
	if err := m.usable("Evaluate"); err != nil {
		return nil, err
	}
	if err := nonNegative("Evaluate", "BatchSize", cfg.BatchSize, "Steps", cfg.Steps); err != nil {
		return nil, err
	}
	if !m.compiled {
		return nil, fmt.Errorf("keras: Evaluate: %w", errNotCompiled)
	}
	if err := m.psLocal("Evaluate"); err != nil {
		return nil, err
	}
	src, err := m.toSource("keras: Evaluate", x, y, cfg.SampleWeight, cfg.BatchSize, false, 0)
	if err == nil {
		err = needSteps("keras: Evaluate", src, cfg.Steps, "Steps")
	}
	if err != nil {
		return nil, err
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	out := cfg.Out
	if out == nil {
		out = os.Stdout
	}
	verbose, err := verbosity("Evaluate", cfg.Verbose)
	if err != nil {
		return nil, err
	}
	logs, err := m.evaluate(ctx, src, cfg.Steps, cfg.Callbacks, verbose, out)
	if err != nil {
		return nil, ops.Where("keras: Evaluate", err)
	}
	return logs, nil
}

func (m *Model) evaluate(ctx context.Context, src source, maxSteps int, cbs callbackList, verbose int, out io.Writer) (Logs, error) {
	steps := src.Steps()
	if maxSteps > 0 {
		steps = maxSteps
	}
	for _, c := range cbs {
		c.SetModel(m)
		c.SetParams(CallbackParams{Epochs: 1, Steps: steps, Verbose: verbose})
	}
	return m.runEvaluate(ctx, src, maxSteps, cbs, verbose, out)
}

// evaluateInFit is Fit's validation: silent, firing the test events of
// Fit's callbacks without changing their model or params.
func (m *Model) evaluateInFit(ctx context.Context, src source, maxSteps int, cbs callbackList) (Logs, error) {
	return m.runEvaluate(ctx, src, maxSteps, cbs, 0, nil)
}

func (m *Model) runEvaluate(ctx context.Context, src source, maxSteps int, cbs callbackList, verbose int, out io.Writer) (Logs, error) {
	defer m.testing()()
	m.ResetMetrics()
	steps := src.Steps()
	if maxSteps > 0 {
		steps = maxSteps
	}
	if err := cbs.event(func(c Callback, l Logs) error { return c.OnTestBegin(l) }); err != nil {
		return nil, err
	}
	var bar *Progbar
	if verbose > 0 {
		bar = NewProgbar(steps, verbose, out)
	}
	fn := m.testFunction()
	pass := src.Pass(ctx, 0)
	defer pass.Close()
	step := 0
	spe := max(m.stepsPerExecution, 1)
	for maxSteps <= 0 || step < maxSteps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, ok := pass.Next()
		if !ok {
			break
		}
		begin := step
		if err := cbs.event(func(c Callback, l Logs) error { return c.OnTestBatchBegin(begin, l) }); err != nil {
			return nil, err
		}
		for {
			if _, err := m.runReplicated(fn, batch, false); err != nil {
				return nil, ops.Where(fmt.Sprintf("batch %d", step), err)
			}
			step++
			if step-begin >= spe || maxSteps > 0 && step >= maxSteps {
				break
			}
			if batch, ok = pass.Next(); !ok {
				break
			}
		}
		logs, err := m.workerLogs()
		if err != nil {
			return nil, err
		}
		if bar != nil && (steps <= 0 || step < steps) {
			bar.Update(step, logs.Items(logOrder(m)), false)
		}
		if err := cbs.each(func(c Callback) error { return c.OnTestBatchEnd(step-1, logs) }); err != nil {
			return nil, err
		}
	}
	if err := pass.Err(); err != nil {
		return nil, err
	}
	if step == 0 {
		return nil, errEmpty
	}
	logs, err := m.workerLogs()
	if err != nil {
		return nil, err
	}
	if bar != nil {
		bar.Update(step, logs.Items(logOrder(m)), true)
	}
	if err := cbs.each(func(c Callback) error { return c.OnTestEnd(logs) }); err != nil {
		return nil, err
	}
	return logs, nil
}

// Predict returns the model's output for x (a *tensor.Dense or a dataset
// whose elements start with the inputs), batch by batch, as model.predict.
// For models with several outputs use [Model.PredictAll].
func (m *Model) Predict(x any, cfg PredictConfig) (*tensor.Dense, error) {
	outs, err := m.PredictAll(x, cfg)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// PredictAll returns every output of the model for x, in output order;
// x takes the forms Fit's x does. [Model.PredictByName] returns them by
// output name.
func (m *Model) PredictAll(x any, cfg PredictConfig) ([]*tensor.Dense, error) {
	if err := m.usable("Predict"); err != nil {
		return nil, err
	}
	if err := nonNegative("Predict", "BatchSize", cfg.BatchSize, "Steps", cfg.Steps); err != nil {
		return nil, err
	}
	if err := m.psLocal("Predict"); err != nil {
		return nil, err
	}
	src, err := m.toSource("keras: Predict", x, nil, nil, cfg.BatchSize, false, 0)
	if err == nil {
		err = needSteps("keras: Predict", src, cfg.Steps, "Steps")
	}
	if err != nil {
		return nil, err
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	verbose, err := verbosity("Predict", cfg.Verbose)
	if err != nil {
		return nil, err
	}
	var bar *Progbar
	if verbose > 0 {
		bar = NewProgbar(src.Steps(), verbose, cfg.Out)
	}
	cbs := callbackList(cfg.Callbacks)
	for _, c := range cbs {
		c.SetModel(m)
	}
	if err := cbs.event(func(c Callback, l Logs) error { return c.OnPredictBegin(l) }); err != nil {
		return nil, err
	}
	fn := m.predictFunction()
	pass := src.Pass(ctx, 0)
	defer pass.Close()
	var acc [][]float32
	var shapes []ops.Shape
	rows := 0
	step := 0
	for cfg.Steps <= 0 || step < cfg.Steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch, ok := pass.Next()
		if !ok {
			break
		}
		begin := step
		if err := cbs.event(func(c Callback, l Logs) error { return c.OnPredictBatchBegin(begin, l) }); err != nil {
			return nil, err
		}
		perReplica, err := m.runReplicated(fn, batch[:min(len(batch), m.nInputs())], false)
		if err != nil {
			return nil, ops.Where(fmt.Sprintf("keras: Predict: batch %d", step), err)
		}
		// Replicas (and workers) hold consecutive rows of the batch.
		outs, err := m.predictRows(perReplica)
		if err != nil {
			return nil, ops.Where(fmt.Sprintf("keras: Predict: batch %d", step), err)
		}
		if len(outs) == 0 || acc != nil && len(outs) != len(acc) {
			return nil, fmt.Errorf("keras: Predict: batch %d: %d outputs, %d before", step, len(outs), len(acc))
		}
		if acc == nil {
			acc = make([][]float32, len(outs))
			shapes = make([]ops.Shape, len(outs))
		}
		for i, o := range outs {
			if shapes[i] != nil && !shapes[i][1:].Equal(o.Shape[1:]) {
				// Keras' predict concatenates the batches too: outputs
				// whose size follows a None dimension that changes from
				// batch to batch cannot be stacked.
				return nil, fmt.Errorf("keras: Predict: batch %d: output %d has shape %v, earlier batches %v: outputs of different sizes per batch (a None dimension that varies) cannot be concatenated; predict batch by batch", step, i, o.Shape, shapes[i])
			}
			acc[i] = append(acc[i], o.Data...)
			shapes[i] = o.Shape
		}
		rows += outs[0].Shape[0]
		step++
		// The last step's line is the final one, below (drawing it here
		// too printed it twice without a terminal).
		if bar != nil && (src.Steps() <= 0 || step < src.Steps()) {
			bar.Update(step, nil, false)
		}
		if err := predictBatchOutputs(cbs, step-1, outs); err != nil {
			return nil, err
		}
		if err := cbs.event(func(c Callback, l Logs) error { return c.OnPredictBatchEnd(step-1, l) }); err != nil {
			return nil, err
		}
	}
	if err := pass.Err(); err != nil {
		return nil, fmt.Errorf("keras: Predict: %w", err)
	}
	if step == 0 {
		return nil, fmt.Errorf("keras: Predict: %w", errEmpty)
	}
	if bar != nil {
		bar.Update(step, nil, true)
	}
	if err := cbs.event(func(c Callback, l Logs) error { return c.OnPredictEnd(l) }); err != nil {
		return nil, err
	}
	res := make([]*tensor.Dense, len(acc))
	for i := range acc {
		sh := append([]int{rows}, shapes[i][1:]...)
		res[i] = tensor.New(tensor.WithShape(sh...), tensor.WithBacking(acc[i]))
	}
	return res, nil
}

// fitCallbacks makes Fit's callback list as Keras' CallbackList does (the
// given callbacks, then History, then the progress bar, so the last two
// see what the others add to the logs), hands each the model and the
// run's parameters, and makes the History the model's.
func (m *Model) fitCallbacks(cfg FitConfig, epochs, steps, verbose int) (*History, callbackList) {
	hist := &History{}
	cbs := append(callbackList{}, cfg.Callbacks...)
	cbs = append(cbs, hist)
	if verbose > 0 {
		out := cfg.Out
		if out == nil {
			out = os.Stdout
		}
		cbs = append(cbs, &ProgbarLogger{Out: out})
	}
	params := CallbackParams{Epochs: epochs, Steps: steps, Verbose: verbose}
	for _, c := range cbs {
		c.SetModel(m)
		c.SetParams(params)
	}
	m.History = hist
	m.stopTraining = false
	return hist, cbs
}

// fitSources makes Fit's training and validation sources from its
// arguments; Fit and the parameter-server Fit share it.
func (m *Model) fitSources(x, y any, cfg FitConfig) (train, val source, err error) {
	var swGiven *tensor.Dense // checkClassWeight only asks whether there are any
	if !isNil(cfg.SampleWeight) {
		swGiven = tensor.New(tensor.WithShape(1), tensor.WithBacking([]float32{1}))
	}
	if err := m.checkClassWeight(cfg.ClassWeight, swGiven); err != nil {
		return nil, nil, err
	}
	if train, err = m.toSource("keras: Fit", x, y, cfg.SampleWeight, cfg.BatchSize, !cfg.NoShuffle, cfg.Seed); err != nil {
		return nil, nil, err
	}
	if cfg.ValidationSplit > 0 {
		ts, ok := train.(*tensorSource)
		if !ok {
			return nil, nil, errors.New("keras: Fit: validation_split needs array data, not a dataset")
		}
		var vs *tensorSource
		if ts, vs, err = ts.split(cfg.ValidationSplit); err != nil {
			return nil, nil, fmt.Errorf("keras: Fit: %w", err)
		}
		vs.shuffle = false
		if cfg.ValidationBatchSize > 0 {
			vs.batch = cfg.ValidationBatchSize
		}
		train, val = ts, vs
	}
	if cfg.ValidationData != nil {
		vb := cfg.ValidationBatchSize
		if vb <= 0 {
			vb = cfg.BatchSize
		}
		if val, err = m.toSource("keras: Fit: validation_data", cfg.ValidationData, nil, nil, vb, false, 0); err != nil {
			return nil, nil, err
		}
	}
	if cfg.ClassWeight != nil {
		train = classWeightSource{src: train, cw: cfg.ClassWeight, labels: m.nInputs()}
	}
	if err := needSteps("keras: Fit: validation_data", val, cfg.ValidationSteps, "ValidationSteps"); err != nil {
		return nil, nil, err
	}
	return train, val, nil
}
