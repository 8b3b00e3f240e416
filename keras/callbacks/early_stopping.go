package callbacks

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/keras"
	"gorgonia.org/tensor"
)

// EarlyStopping is Keras' EarlyStopping: it stops training when the
// monitored quantity has stopped improving.
//
// Options and Keras' defaults: Monitor("val_loss"), MinDelta(0),
// Patience(0), Verbose(0), Mode("auto"), Baseline (none),
// RestoreBestWeights(false), StartFromEpoch(0).
//
// At the end of each epoch from StartFromEpoch on, the monitored value
// improves when it beats the best so far by more than MinDelta; after
// Patience epochs without improvement (counting from the last one that
// also beat the Baseline, if any) it calls Model.StopTraining, and Fit
// stops after that epoch. With RestoreBestWeights the weights of the best
// epoch are restored when training ends.
type EarlyStopping struct {
	keras.CallbackBase

	// State, as Keras' attributes: epochs since the last improvement, the
	// best value and its epoch, and the epoch training was stopped at
	// (0 if it was not).
	Wait, BestEpoch, StoppedEpoch int
	Best                          float64

	s           settings
	err         error
	maximize    bool
	hasBest     bool
	bestWeights []*tensor.Dense
}

// NewEarlyStopping makes an EarlyStopping callback.
func NewEarlyStopping(opts ...Option) *EarlyStopping {
	s, err := newSettings("EarlyStopping", []string{"monitor", "min_delta", "patience", "mode", "baseline",
		"restore_best_weights", "start_from_epoch"}, opts)
	s.minDelta = math.Abs(s.minDelta)
	return &EarlyStopping{s: s, err: err, maximize: maximizes(s.monitor, s.mode)}
}

// Err returns the error of the options the callback was made with.
func (c *EarlyStopping) Err() error { return c.err }

// OnTrainBegin implements keras.Callback: it resets the state, so that the
// callback can be reused.
func (c *EarlyStopping) OnTrainBegin(keras.Logs) error {
	c.Wait, c.StoppedEpoch, c.BestEpoch = 0, 0, 0
	c.Best, c.hasBest, c.bestWeights = 0, false, nil
	return c.err
}

// improves reports whether v beats ref by more than MinDelta.
func (c *EarlyStopping) improves(v, ref float64) bool {
	if c.maximize {
		return v-c.s.minDelta > ref
	}
	return v+c.s.minDelta < ref
}

// OnEpochEnd implements keras.Callback.
func (c *EarlyStopping) OnEpochEnd(epoch int, logs keras.Logs) error {
	v, ok := logs.Get(c.s.monitor)
	if !ok {
		warnf("callbacks: EarlyStopping conditioned on metric %q which is not available. Available metrics are: %s", c.s.monitor, available(logs))
		return nil
	}
	if epoch < c.s.startFromEpoch {
		return nil
	}
	if c.s.restoreBestWeights && c.bestWeights == nil {
		// Until something improves, the current weights are the best.
		c.bestWeights, c.BestEpoch = c.Model.GetWeights(), epoch
	}
	c.Wait++
	if !c.hasBest || c.improves(v, c.Best) {
		c.Best, c.hasBest, c.BestEpoch = v, true, epoch
		if c.s.restoreBestWeights {
			c.bestWeights = c.Model.GetWeights()
		}
		// The patience restarts only when the baseline is beaten too.
		if math.IsNaN(c.s.baseline) || c.improves(v, c.s.baseline) {
			c.Wait = 0
		}
		return nil
	}
	if c.Wait >= c.s.patience && epoch > 0 {
		c.StoppedEpoch = epoch
		c.Model.StopTraining()
	}
	return nil
}

// OnTrainEnd implements keras.Callback: it restores the best weights when
// asked to.
func (c *EarlyStopping) OnTrainEnd(keras.Logs) error {
	if c.StoppedEpoch > 0 && c.s.verbose > 0 {
		fmt.Fprintf(c.s.out, "Epoch %d: early stopping\n", c.StoppedEpoch+1)
	}
	if c.s.restoreBestWeights && c.bestWeights != nil {
		if c.s.verbose > 0 {
			fmt.Fprintf(c.s.out, "Restoring model weights from the end of the best epoch: %d.\n", c.BestEpoch+1)
		}
		if err := c.Model.SetWeights(c.bestWeights); err != nil {
			return fmt.Errorf("callbacks: EarlyStopping: %w", err)
		}
	}
	return nil
}
