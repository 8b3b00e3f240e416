package callbacks

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/keras"
)

// Option sets a keyword argument of a callback, named after Keras'
// keyword. Every callback of the package takes the same Option type; an
// option a callback does not take (Factor for EarlyStopping) makes its
// construction fail: the callback's Err, and OnTrainBegin, return the error.
type Option func(*settings)

// settings holds every keyword argument of every callback; each callback
// reads the ones it declares.
type settings struct {
	set map[string]bool

	monitor               string
	mode                  string
	minDelta              float64
	patience              int
	verbose               int
	baseline              float64
	restoreBestWeights    bool
	startFromEpoch        int
	factor                float64
	cooldown              int
	minLR                 float64
	saveBestOnly          bool
	saveWeightsOnly       bool
	saveFreq              any
	initialValueThreshold float64
	separator             string
	appendFile            bool
	histogramFreq         int
	updateFreq            any
	deleteCheckpoint      bool
	saveBeforePreemption  bool
	preemptionWatcher     func() bool
	out                   io.Writer
}

func (s *settings) mark(key string) { s.set[key] = true }

// Monitor names the logged quantity to watch, such as "val_loss" (the
// default) or "val_accuracy".
func Monitor(name string) Option { return func(s *settings) { s.monitor = name; s.mark("monitor") } }

// Mode is "auto" (the default), "min" or "max": whether the monitored
// quantity should decrease or increase. "auto" maximises accuracy-like
// quantities (names containing "acc" or "auc", "precision", "recall",
// "fmeasure"...) and minimises the others, losses and errors.
func Mode(mode string) Option { return func(s *settings) { s.mode = mode; s.mark("mode") } }

// MinDelta is the smallest change of the monitored quantity that counts
// as an improvement (its absolute value is used).
func MinDelta(d float64) Option { return func(s *settings) { s.minDelta = d; s.mark("min_delta") } }

// Patience is the number of epochs without improvement to wait.
func Patience(n int) Option { return func(s *settings) { s.patience = n; s.mark("patience") } }

// Verbose 1 prints a message when the callback acts; 0 (the default) is silent.
func Verbose(v int) Option { return func(s *settings) { s.verbose = v; s.mark("verbose") } }

// Baseline is the value the monitored quantity must beat for the patience
// to be reset (EarlyStopping).
func Baseline(v float64) Option { return func(s *settings) { s.baseline = v; s.mark("baseline") } }

// RestoreBestWeights restores, when training ends, the weights of the
// epoch with the best monitored value (EarlyStopping).
func RestoreBestWeights(b bool) Option {
	return func(s *settings) { s.restoreBestWeights = b; s.mark("restore_best_weights") }
}

// StartFromEpoch is the number of warm-up epochs before improvement is
// monitored (EarlyStopping).
func StartFromEpoch(n int) Option {
	return func(s *settings) { s.startFromEpoch = n; s.mark("start_from_epoch") }
}

// Factor multiplies the learning rate at each reduction (ReduceLROnPlateau;
// default 0.1, must be < 1).
func Factor(f float64) Option { return func(s *settings) { s.factor = f; s.mark("factor") } }

// Cooldown is the number of epochs to wait after a reduction before
// counting epochs without improvement again (ReduceLROnPlateau).
func Cooldown(n int) Option { return func(s *settings) { s.cooldown = n; s.mark("cooldown") } }

// MinLR is the lower bound of the learning rate (ReduceLROnPlateau).
func MinLR(lr float64) Option { return func(s *settings) { s.minLR = lr; s.mark("min_lr") } }

// SaveBestOnly saves only when the monitored quantity improves on the best
// seen (ModelCheckpoint).
func SaveBestOnly(b bool) Option {
	return func(s *settings) { s.saveBestOnly = b; s.mark("save_best_only") }
}

// SaveWeightsOnly saves the weights (Model.SaveWeights, a .weights.npz
// path) instead of the whole model (Model.Save, a .keras path)
// (ModelCheckpoint).
func SaveWeightsOnly(b bool) Option {
	return func(s *settings) { s.saveWeightsOnly = b; s.mark("save_weights_only") }
}

// SaveFreq is "epoch" (the default: save at the end of every epoch) or a
// number of batches between saves (ModelCheckpoint, BackupAndRestore).
func SaveFreq(freq any) Option { return func(s *settings) { s.saveFreq = freq; s.mark("save_freq") } }

// InitialValueThreshold is the best value a checkpoint must beat at first
// (ModelCheckpoint with SaveBestOnly).
func InitialValueThreshold(v float64) Option {
	return func(s *settings) { s.initialValueThreshold = v; s.mark("initial_value_threshold") }
}

// Separator separates the columns of the CSV file (CSVLogger; default ",").
func Separator(sep string) Option {
	return func(s *settings) { s.separator = sep; s.mark("separator") }
}

// Append appends to an existing CSV file instead of overwriting it
// (CSVLogger).
func Append(b bool) Option { return func(s *settings) { s.appendFile = b; s.mark("append") } }

// HistogramFreq is the frequency, in epochs, of the weight histograms
// (TensorBoard; 0, the default, writes none).
func HistogramFreq(n int) Option {
	return func(s *settings) { s.histogramFreq = n; s.mark("histogram_freq") }
}

// UpdateFreq is "epoch" (the default), "batch", or a number of batches
// between the writes of batch-level metrics (TensorBoard).
func UpdateFreq(freq any) Option {
	return func(s *settings) { s.updateFreq = freq; s.mark("update_freq") }
}

// DeleteCheckpoint deletes the backup when training completes
// (BackupAndRestore; default true).
func DeleteCheckpoint(b bool) Option {
	return func(s *settings) { s.deleteCheckpoint = b; s.mark("delete_checkpoint") }
}

// SaveBeforePreemption makes BackupAndRestore back up when this worker,
// or any worker of its cluster, is told it will be preempted (SIGTERM, or
// a PreemptionWatcher that reports true), at the end of the same batch on
// every worker, and stop Fit with an error wrapping ErrPreempted
// (tf.keras' save_before_preemption, TensorFlow's
// PreemptionCheckpointHandler for Fit).
func SaveBeforePreemption(b bool) Option {
	return func(s *settings) { s.saveBeforePreemption = b; s.mark("save_before_preemption") }
}

// PreemptionWatcher adds a preemption notice to SIGTERM's for
// SaveBeforePreemption: f is called after every batch and reports whether
// this worker is about to be preempted (a cluster's notice file or
// metadata endpoint; TensorFlow's TerminationConfig.termination_watcher_fn).
// It must be fast and must not block.
func PreemptionWatcher(f func() bool) Option {
	return func(s *settings) { s.preemptionWatcher = f; s.mark("termination_watcher_fn") }
}

// Output receives the messages of verbose callbacks (default os.Stdout).
func Output(w io.Writer) Option { return func(s *settings) { s.out = w; s.mark("output") } }

// commonKeys are the options every callback takes.
var commonKeys = []string{"verbose", "output"}

// newSettings applies opts over Keras' defaults and checks that class
// takes each of them.
func newSettings(class string, allowed []string, opts []Option) (settings, error) {
	s := settings{
		set: map[string]bool{}, monitor: "val_loss", mode: "auto", factor: 0.1, patience: 0,
		saveFreq: "epoch", updateFreq: "epoch", separator: ",", deleteCheckpoint: true,
		baseline: math.NaN(), initialValueThreshold: math.NaN(),
	}
	for _, o := range opts {
		if o != nil {
			o(&s)
		}
	}
	var bad []string
	for k := range s.set {
		if !slices.Contains(allowed, k) && !slices.Contains(commonKeys, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return s, fmt.Errorf("callbacks: %s does not take option(s) %s", class, strings.Join(bad, ", "))
	}
	if s.out == nil {
		s.out = os.Stdout
	}
	if s.mode != "auto" && s.mode != "min" && s.mode != "max" {
		return s, fmt.Errorf("callbacks: %s: mode must be \"auto\", \"min\" or \"max\", got %q", class, s.mode)
	}
	for _, p := range []struct {
		key string
		v   int
	}{{"patience", s.patience}, {"cooldown", s.cooldown}, {"start_from_epoch", s.startFromEpoch}, {"histogram_freq", s.histogramFreq}} {
		if p.v < 0 {
			return s, fmt.Errorf("callbacks: %s: %s must be >= 0, got %d", class, p.key, p.v)
		}
	}
	return s, nil
}

// frequency reads "epoch" (0), "batch" (1) or a positive number of batches.
func frequency(class, key string, v any, batchOK bool) (int, error) {
	switch f := v.(type) {
	case string:
		if f == "epoch" {
			return 0, nil
		}
		if f == "batch" && batchOK {
			return 1, nil
		}
	case int:
		if f > 0 {
			return f, nil
		}
	}
	want := `"epoch" or a positive number of batches`
	if batchOK {
		want = `"epoch", "batch" or a positive number of batches`
	}
	return 0, fmt.Errorf("callbacks: %s: %s must be %s, got %v", class, key, want, v)
}

// warnf reports what Keras reports as warnings (a monitored quantity
// missing from the logs) through the gokeras logger (keras.SetLogger,
// else slog.Default).
var warnf = logging.Warnf

// maximizes resolves mode "auto" from the monitored quantity's name.
func maximizes(monitor, mode string) bool {
	switch mode {
	case "max":
		return true
	case "min":
		return false
	}
	name := strings.ToLower(strings.TrimPrefix(monitor, "val_"))
	if strings.Contains(name, "acc") || strings.Contains(name, "auc") || strings.HasPrefix(name, "fmeasure") {
		return true
	}
	for _, s := range []string{"precision", "recall", "f1", "fbeta", "iou", "top_k"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// available lists the log names, for warnings.
func available(logs keras.Logs) string {
	var names []string
	for k := range logs {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
