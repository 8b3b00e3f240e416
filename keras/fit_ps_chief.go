package keras

import (
	"context"
	"errors"
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// traceTrainStep traces the train step on this process for batch without
// running it, so that the coordinator, which runs no step itself, knows
// the metrics its workers' steps report (compiled metrics are made from
// the shapes of labels and predictions) and builds the model.
func (m *Model) traceTrainStep(batch []ops.Value) (err error) {
	fns := m.trainFunction()
	defer guard(fns[0].Name, &err)
	if err := m.ensureBuilt(batch); err != nil {
		return err
	}
	parts, err := splitBatch(batch, len(fns))
	if err != nil {
		return err
	}
	shapes := make([]ops.Shape, 0, len(parts[0])+1)
	for _, v := range parts[0] {
		shapes = append(shapes, v.Shape)
	}
	shapes = append(shapes, ops.Shape{}) // 1/global_batch
	_, err = fns[0].Program(shapes)
	return err
}

// psPrepare traces the train step for batch, which builds the model, and
// places its weights on the servers: every task of the cluster does it
// with the same model, so the weights get the same ids everywhere.
func (m *Model) psPrepare(ps psStrategy, batch []ops.Value) error {
	psStepMu.Lock()
	err := m.traceTrainStep(batch)
	psStepMu.Unlock()
	if err != nil {
		return ops.Where("tracing the train step", err)
	}
	if err := ps.PSTrack(m.Weights()); err != nil {
		return fmt.Errorf("placing the weights on the parameter servers: %w", err)
	}
	return nil
}

// psPull brings the servers' weights, and their optimizer's state when the
// strategy can move it, into the coordinator's model and optimizer: what
// callbacks save and validation evaluates.
func (m *Model) psPull(ps psStrategy) error {
	if err := ps.PSPull(m.Weights()); err != nil {
		return fmt.Errorf("pulling the weights from the parameter servers: %w", err)
	}
	if err := ps.PSPullOptimizer(m.optimizer, m.TrainableVariables()); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("pulling the optimizer's state from the parameter servers: %w", err)
	}
	return nil
}

// fitPSChief is the coordinator's Fit: it schedules the workers' steps
// and does everything else (callbacks, logs, validation) itself.
func (m *Model) fitPSChief(ps psStrategy, name string, train, val source, cfg FitConfig) (hist *History, err error) {
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	epochs := max(cfg.Epochs, 1)
	verbose, err := verbosity("Fit", cfg.Verbose)
	if err != nil {
		return nil, err
	}
	// The coordinator's own first batch gives the shapes to trace with.
	first := train.Pass(ctx, 0)
	batch, ok := first.Next()
	perr := first.Err()
	if !ok {
		first.Close()
		if perr != nil {
			return nil, fmt.Errorf("keras: Fit: %w", perr)
		}
		return nil, fmt.Errorf("keras: Fit: %w", errEmpty)
	}
	err = m.psPrepare(ps, batch)
	first.Close()
	if err != nil {
		return nil, fmt.Errorf("keras: Fit: coordinator: %w", err)
	}
	// Every task registers the same steps in the same order; the
	// coordinator's registration only names the step.
	if err := ps.PSRegister(name, func([]float64) ([]float64, error) {
		return nil, errors.New("keras: Fit: the coordinator runs no train step")
	}); err != nil {
		return nil, fmt.Errorf("keras: Fit: %w", err)
	}
	// However this Fit ends, the workers' Fits serving its step return,
	// so that a next Fit (or loop) finds them registering its own.
	defer func() { _ = ps.PSFinish(name) }()
	steps := cfg.StepsPerEpoch
	hist, cbs := m.fitCallbacks(cfg, epochs, steps, verbose)
	if err := cbs.event(func(c Callback, l Logs) error { return c.OnTrainBegin(l) }); err != nil {
		return hist, err
	}
	resumed := false
	for _, c := range cbs {
		if s, ok := c.(InitialEpochSetter); ok {
			if e, ok := s.InitialEpoch(); ok {
				cfg.InitialEpoch, resumed = e, true
			}
		}
	}
	// The servers start from the coordinator's weights and optimizer: its
	// initial ones, those a previous Fit pulled back, or those a callback
	// restored (BackupAndRestore after a relaunch). The coordinator sets
	// the optimizer before any worker pushes, so that under TLS the
	// servers take an optimizer only from the chief.
	if err := ps.PSPush(m.Weights()); err != nil {
		return hist, fmt.Errorf("keras: Fit: pushing the weights to the parameter servers: %w", err)
	}
	if err := ps.PSPushOptimizer(m.optimizer, m.TrainableVariables()); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		what := "setting"
		if resumed {
			what = "restoring"
		}
		return hist, fmt.Errorf("keras: Fit: %s the parameter servers' optimizer: %w", what, err)
	}
	window := 2 * max(ps.PSWorkers(), 1) // steps in flight: enough to keep every worker busy
	epochLogs := Logs{}
	for epoch := cfg.InitialEpoch; epoch < epochs && !m.stopTraining; epoch++ {
		m.ResetMetrics()
		if err := cbs.event(func(c Callback, l Logs) error { return c.OnEpochBegin(epoch, l) }); err != nil {
			return hist, err
		}
		var sum []float64
		add := func(wait func() ([]float64, error), step int) error {
			st, err := wait()
			if err != nil {
				return ops.Where(fmt.Sprintf("keras: Fit: epoch %d, step %d", epoch+1, step), err)
			}
			if sum == nil {
				sum = make([]float64, len(st))
			}
			if len(st) != len(sum) {
				return fmt.Errorf("keras: Fit: epoch %d, step %d: a worker reported %d metric values, others %d", epoch+1, step, len(st), len(sum))
			}
			for i, v := range st {
				sum[i] += v
			}
			return nil
		}
		type inFlight struct {
			wait func() ([]float64, error)
			step int
		}
		var pending []inFlight
		drain := func(keep int) error {
			for len(pending) > keep {
				f := pending[0]
				pending = pending[1:]
				if err := add(f.wait, f.step); err != nil {
					return err
				}
			}
			return nil
		}
		// Each call runs up to StepsPerExecution steps on one worker;
		// the batch callbacks see its first and last, as Fit's.
		spe := max(m.stepsPerExecution, 1)
		step := 0
		for step < steps {
			if err := ctx.Err(); err != nil {
				// Steps in flight finish on their workers; nobody waits
				// for them.
				_ = cbs.each(func(c Callback) error { return c.OnTrainEnd(epochLogs) })
				return hist, fmt.Errorf("keras: Fit: stopped at epoch %d, batch %d: %w", epoch+1, step, err)
			}
			begin := step
			if err := cbs.event(func(c Callback, l Logs) error { return c.OnTrainBatchBegin(begin, l) }); err != nil {
				return hist, err
			}
			n := min(spe, steps-step)
			args := append([]float64{float64(n)}, psLearningRate(m.optimizer)...)
			pending = append(pending, inFlight{ps.PSSchedule(name, args...), step})
			if err := drain(window - 1); err != nil {
				return hist, err
			}
			logs := Logs{}
			if sum != nil {
				if logs, err = m.logsOfStates(sum); err != nil {
					return hist, fmt.Errorf("keras: Fit: epoch %d, batch %d: %w", epoch+1, step, err)
				}
			}
			step += n
			end := step - 1
			if savesAtBatchEnd(cbs) {
				// A callback saves now: it saves what the servers hold
				// (steps still in flight are not waited for, as at any
				// moment of asynchronous training).
				if err := m.psPull(ps); err != nil {
					return hist, fmt.Errorf("keras: Fit: epoch %d, batch %d: %w", epoch+1, end, err)
				}
			}
			if err := cbs.each(func(c Callback) error { return c.OnTrainBatchEnd(end, logs) }); err != nil {
				return hist, err
			}
			if m.stopTraining {
				break
			}
		}
		if err := drain(0); err != nil {
			return hist, err
		}
		if err := ps.PSJoin(); err != nil {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, err)
		}
		if sum == nil {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, errEmpty)
		}
		if epochLogs, err = m.logsOfStates(sum); err != nil {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, err)
		}
		if err := m.psPull(ps); err != nil {
			return hist, fmt.Errorf("keras: Fit: epoch %d: %w", epoch+1, err)
		}
		if val != nil {
			vl, err := m.evaluateInFit(ctx, val, cfg.ValidationSteps, cbs)
			if err != nil {
				return hist, ops.Where("keras: Fit: validation", err)
			}
			for name, v := range vl {
				epochLogs["val_"+name] = v
			}
		}
		if err := cbs.each(func(c Callback) error { return c.OnEpochEnd(epoch, epochLogs) }); err != nil {
			return hist, err
		}
	}
	// Keras' fit ends by finalize_variable_values: with use_ema the
	// weights become their moving averages, which the servers' optimizers
	// hold. They swap them in; the coordinator pulls the result.
	if usesEMA(m.optimizer) {
		if err := ps.PSFinalize(); err != nil {
			return hist, fmt.Errorf("keras: Fit: use_ema: %w", err)
		}
		if err := m.psPull(ps); err != nil {
			return hist, fmt.Errorf("keras: Fit: use_ema: %w", err)
		}
	}
	if err := cbs.each(func(c Callback) error { return c.OnTrainEnd(epochLogs) }); err != nil {
		return hist, err
	}
	return hist, nil
}

// BatchSaver is implemented by callbacks that save the model at some
// batch ends (ModelCheckpoint with a save frequency in batches). Under a
// ParameterServerStrategy the coordinator's weights are copies, pulled at
// each epoch's end; before a batch end at which a callback will save, Fit
// pulls the servers' weights and optimizer state too.
type BatchSaver interface {
	// SavesAtBatchEnd reports whether the callback's next
	// OnTrainBatchEnd saves.
	SavesAtBatchEnd() bool
}

// savesAtBatchEnd reports whether a callback of cbs saves at the next
// batch end.
func savesAtBatchEnd(cbs callbackList) bool {
	for _, c := range cbs {
		if b, ok := c.(BatchSaver); ok && b.SavesAtBatchEnd() {
			return true
		}
	}
	return false
}

// usesEMA reports whether opt keeps moving averages of the weights
// (use_ema).
func usesEMA(opt any) bool {
	o, ok := opt.(interface{ GetConfig() map[string]any })
	if !ok {
		return false
	}
	on, _ := o.GetConfig()["use_ema"].(bool)
	return on
}
