package callbacks

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gokeras/gokeras/keras"
)

// ModelCheckpoint is Keras' ModelCheckpoint: it saves the model, or its
// weights, during training.
//
// filepath is a template in Python's str.format syntax (see [Format]) with
// the fields epoch (1-based), batch (1-based, when saving every N batches)
// and the names of the logs: "ckpt_{epoch:04d}.weights.h5",
// "model-{epoch:02d}-{val_loss:.2f}.keras". It must end in .weights.h5 (or
// .weights.npz) with SaveWeightsOnly(true) (Model.SaveWeights) and in .keras otherwise
// (Model.Save). Missing directories are created; files are written
// atomically.
//
// Options and Keras' defaults: Monitor("val_loss"), Verbose(0),
// SaveBestOnly(false), SaveWeightsOnly(false), Mode("auto"),
// SaveFreq("epoch"), InitialValueThreshold (none). With SaveBestOnly a
// file is written only when the monitored value beats the best so far
// (strictly; the first value always does unless InitialValueThreshold is
// set and not beaten).
//
// Under a strategy spanning several workers (engine.Cluster) only the
// chief writes filepath; the others write to a temporary directory beside
// it that is removed after each save, as in TensorFlow.
type ModelCheckpoint struct {
	keras.CallbackBase

	// Best is the best monitored value saved so far (±Inf before any).
	Best float64
	// LastPath is the file written last (by the chief, on other workers).
	LastPath string

	filepath string
	s        settings
	err      error
	maximize bool
	freq     int // batches between saves; 0: every epoch
	seen     int
	epoch    int
}

// NewModelCheckpoint makes a ModelCheckpoint saving to the filepath template.
func NewModelCheckpoint(filepath string, opts ...Option) *ModelCheckpoint {
	s, err := newSettings("ModelCheckpoint", []string{"monitor", "save_best_only", "save_weights_only", "mode",
		"save_freq", "initial_value_threshold"}, opts)
	c := &ModelCheckpoint{filepath: filepath, s: s, err: err, maximize: maximizes(s.monitor, s.mode)}
	if c.err == nil {
		c.freq, c.err = frequency("ModelCheckpoint", "save_freq", s.saveFreq, false)
	}
	if c.err == nil {
		switch {
		case s.saveWeightsOnly && !strings.HasSuffix(filepath, ".weights.h5") && !strings.HasSuffix(filepath, ".weights.npz"):
			c.err = fmt.Errorf("callbacks: ModelCheckpoint: with save_weights_only the filepath must end in .weights.h5 (or .weights.npz), got %q", filepath)
		case !s.saveWeightsOnly && !strings.HasSuffix(filepath, ".keras"):
			c.err = fmt.Errorf("callbacks: ModelCheckpoint: the filepath must end in .keras (or .weights.h5 with save_weights_only), got %q", filepath)
		}
	}
	return c
}

// Err returns the error of the options the callback was made with.
func (c *ModelCheckpoint) Err() error { return c.err }

// OnTrainBegin implements keras.Callback.
func (c *ModelCheckpoint) OnTrainBegin(keras.Logs) error {
	if c.err != nil {
		return c.err
	}
	c.Best = math.Inf(1)
	if c.maximize {
		c.Best = math.Inf(-1)
	}
	if !math.IsNaN(c.s.initialValueThreshold) {
		c.Best = c.s.initialValueThreshold
	}
	c.seen = 0
	return nil
}

// OnEpochBegin implements keras.Callback.
func (c *ModelCheckpoint) OnEpochBegin(epoch int, _ keras.Logs) error {
	c.epoch = epoch
	return nil
}

// OnTrainBatchEnd implements keras.Callback: it saves every SaveFreq batches.
func (c *ModelCheckpoint) OnTrainBatchEnd(batch int, logs keras.Logs) error {
	if c.freq == 0 {
		return nil
	}
	c.seen++
	if c.seen < c.freq {
		return nil
	}
	c.seen = 0
	return c.save(c.epoch, batch, logs)
}

// SavesAtBatchEnd implements keras.BatchSaver: whether the next
// OnTrainBatchEnd saves (every SaveFreq batches), so that Fit under a
// ParameterServerStrategy pulls the servers' weights first.
func (c *ModelCheckpoint) SavesAtBatchEnd() bool {
	return c.err == nil && c.freq != 0 && c.seen+1 >= c.freq
}

// OnEpochEnd implements keras.Callback: it saves with SaveFreq("epoch").
func (c *ModelCheckpoint) OnEpochEnd(epoch int, logs keras.Logs) error {
	if c.freq != 0 {
		return nil
	}
	return c.save(epoch, -1, logs)
}

func (c *ModelCheckpoint) better(v float64) bool {
	if c.maximize {
		return v > c.Best
	}
	return v < c.Best
}

// save writes the checkpoint for epoch (and batch, when >= 0).
func (c *ModelCheckpoint) save(epoch, batch int, logs keras.Logs) error {
	fields := map[string]any{}
	for name, v := range logs {
		fields[name] = v
	}
	fields["epoch"] = epoch + 1
	if batch >= 0 {
		fields["batch"] = batch + 1
	}
	path, err := Format(c.filepath, fields)
	if err != nil {
		return fmt.Errorf("callbacks: ModelCheckpoint: failed to format the filepath: %w", err)
	}
	f5 := func(v float64) string { s, _ := Format("{v:.5f}", map[string]any{"v": v}); return s }
	if c.s.saveBestOnly {
		v, ok := logs.Get(c.s.monitor)
		if !ok {
			warnf("callbacks: ModelCheckpoint: can save best model only with %s available, skipping.", c.s.monitor)
			return nil
		}
		if !c.better(v) {
			if c.s.verbose > 0 {
				fmt.Fprintf(c.s.out, "\nEpoch %d: %s did not improve from %s\n", epoch+1, c.s.monitor, f5(c.Best))
			}
			return nil
		}
		if c.s.verbose > 0 {
			fmt.Fprintf(c.s.out, "\nEpoch %d: %s improved from %s to %s, saving model to %s\n", epoch+1, c.s.monitor, f5(c.Best), f5(v), path)
		}
		c.Best = v
	} else if c.s.verbose > 0 {
		fmt.Fprintf(c.s.out, "\nEpoch %d: saving model to %s\n", epoch+1, path)
	}
	wpath, cleanup, err := writeFile("ModelCheckpoint", c.Model, path) // the chief writes path (chief.go)
	if err != nil {
		return err
	}
	defer cleanup()
	if dir := filepath.Dir(wpath); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("callbacks: ModelCheckpoint: %w", err)
		}
	}
	if c.s.saveWeightsOnly {
		err = c.Model.SaveWeights(wpath)
	} else {
		err = c.Model.Save(wpath)
	}
	if err != nil {
		return fmt.Errorf("callbacks: ModelCheckpoint: %w", err)
	}
	c.LastPath = path
	return cleanup()
}
