package callbacks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/keras"
)

// BackupFile is the name of BackupAndRestore's checkpoint in its directory.
const BackupFile = "latest.checkpoint.npz"

// BackupAndRestore is Keras' BackupAndRestore: it lets an interrupted Fit
// resume where it stopped. At the end of every epoch it writes a
// checkpoint (Model.SaveCheckpointEpoch: weights, optimizer state and the
// epoch to resume at) to backupDir/latest.checkpoint.npz, atomically, so
// that an interruption at any moment leaves the previous backup whole.
// The backup carries the CRC-32C of every array: a corrupt backup makes
// Fit fail with an error naming the file and the array rather than resume
// from wrong values (backups written before checksums still load).
// When Fit begins and a backup exists, it restores the model and the
// optimizer from it and Fit resumes at the epoch after the backed-up one
// (through keras.InitialEpochSetter).
//
// SaveFreq(n), a number of batches, backs up after every n-th batch
// instead (counted across epochs, as Keras counts them); such a backup
// records the batch, and Fit resumes at the next one (keras.InitialStepSetter):
// the batches before it are skipped, the random generators' states are
// the backup's, so the resumed run trains as the uninterrupted one would
// have. The resumed epoch's logged metrics average its remaining batches
// only. With SaveBeforePreemption(true) a SIGTERM (or a
// PreemptionWatcher's notice) on any worker makes every worker back up at
// the end of the same batch, and Fit returns an error wrapping
// ErrPreempted (TensorFlow's PreemptionCheckpointHandler; tf.keras'
// save_before_preemption).
//
// When Fit completes (all epochs, or stopped by a callback such as
// EarlyStopping) the backup is deleted, unless DeleteCheckpoint(false); a
// Fit interrupted in the middle of an epoch (its Context cancelled,
// preempted) keeps it. Options and Keras' defaults: SaveFreq("epoch"),
// DeleteCheckpoint(true), SaveBeforePreemption(false).
//
// The model to restore must be the one backed up, compiled the same way.
//
// Under a strategy spanning several workers (engine.Cluster) only the
// chief writes and deletes backupDir's backup; the others write theirs to
// a temporary directory that is removed after each backup, and every
// worker restores from the chief's backup, as in TensorFlow.
type BackupAndRestore struct {
	keras.CallbackBase

	dir     string
	s       settings
	err     error
	freq    int // batches between backups; 0: at the end of each epoch only
	resume  int
	step    int // batches of the resumed epoch done before the backup
	resumed bool
	inEpoch bool
	epoch   int // in progress
	batches int // since the last backup
	watch   *preemptionWatch
}

// NewBackupAndRestore makes a BackupAndRestore callback backing up to backupDir.
func NewBackupAndRestore(backupDir string, opts ...Option) *BackupAndRestore {
	s, err := newSettings("BackupAndRestore", []string{"save_freq", "delete_checkpoint", "save_before_preemption", "termination_watcher_fn"}, opts)
	if err == nil && backupDir == "" {
		err = errors.New("callbacks: BackupAndRestore: empty backup_dir")
	}
	var freq int
	if err == nil {
		freq, err = frequency("BackupAndRestore", "save_freq", s.saveFreq, false)
	}
	if err == nil && s.preemptionWatcher != nil && !s.saveBeforePreemption {
		err = errors.New("callbacks: BackupAndRestore: a PreemptionWatcher needs SaveBeforePreemption(true)")
	}
	return &BackupAndRestore{dir: backupDir, s: s, err: err, freq: freq}
}

// Err returns the error of the options the callback was made with.
func (c *BackupAndRestore) Err() error { return c.err }

// Path returns the backup's path.
func (c *BackupAndRestore) Path() string { return filepath.Join(c.dir, BackupFile) }

// OnTrainBegin implements keras.Callback: it restores the backup, if any.
func (c *BackupAndRestore) OnTrainBegin(keras.Logs) error {
	if c.err != nil {
		return c.err
	}
	c.resumed, c.inEpoch, c.step, c.batches = false, false, 0, 0
	if c.s.saveBeforePreemption {
		c.watch.stop()
		c.watch = startPreemptionWatch(c.s.preemptionWatcher)
	}
	if _, err := os.Stat(c.Path()); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("callbacks: BackupAndRestore: %w", err)
	}
	epoch, step, err := c.Model.RestoreCheckpointAt(c.Path())
	if err != nil {
		return fmt.Errorf("callbacks: BackupAndRestore: %w", err)
	}
	c.resume, c.step, c.resumed = epoch, step, true
	if c.s.verbose > 0 {
		fmt.Fprintf(c.s.out, "BackupAndRestore: resuming at epoch %d, batch %d from %s\n", epoch+1, step+1, c.Path())
	}
	return nil
}

// InitialStep implements keras.InitialStepSetter: the batches of the
// resumed epoch trained before a backup made after a batch.
func (c *BackupAndRestore) InitialStep() (int, bool) { return c.step, c.resumed && c.step > 0 }

// InitialEpoch implements keras.InitialEpochSetter: the epoch after the
// backed-up one, when a backup was restored.
func (c *BackupAndRestore) InitialEpoch() (int, bool) { return c.resume, c.resumed }

// OnEpochBegin implements keras.Callback.
func (c *BackupAndRestore) OnEpochBegin(epoch int, _ keras.Logs) error {
	c.inEpoch, c.epoch = true, epoch
	return nil
}

// OnTrainBatchEnd implements keras.Callback: the backup every save_freq
// batches, and the one before a preemption.
func (c *BackupAndRestore) OnTrainBatchEnd(batch int, _ keras.Logs) error {
	c.batches++
	if c.freq > 0 && c.batches >= c.freq {
		if err := c.backup(c.epoch, batch+1); err != nil {
			return err
		}
	}
	if c.watch == nil {
		return nil
	}
	preempted, err := c.watch.agreed(c.Model)
	if err != nil || !preempted {
		return err
	}
	if c.batches > 0 { // not just written by save_freq
		if err := c.backup(c.epoch, batch+1); err != nil {
			return err
		}
	}
	// Fit returns at once, without OnTrainEnd: the watch ends here.
	c.watch.stop()
	c.watch = nil
	return fmt.Errorf("callbacks: BackupAndRestore: %w at epoch %d, batch %d, in %s", ErrPreempted, c.epoch+1, batch+1, c.Path())
}

// OnEpochEnd implements keras.Callback: it backs up the model.
func (c *BackupAndRestore) OnEpochEnd(epoch int, _ keras.Logs) error {
	c.inEpoch = false
	if c.freq > 0 {
		return nil // every save_freq batches only, as Keras
	}
	return c.backup(epoch+1, 0)
}

// backup writes the checkpoint of step batches done in epoch (the chief
// to Path(), the other workers to a temporary directory: chief.go).
func (c *BackupAndRestore) backup(epoch, step int) error {
	c.batches = 0
	if step > 0 && c.Params.Steps > 0 && step >= c.Params.Steps {
		epoch, step = epoch+1, 0 // after the epoch's last batch: resume at the next epoch
	}
	dir, path, cleanup, err := c.writePath()
	if err != nil {
		return err
	}
	defer cleanup()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("callbacks: BackupAndRestore: %w", err)
	}
	if err := c.Model.SaveCheckpointAt(path, epoch, step); err != nil {
		return fmt.Errorf("callbacks: BackupAndRestore: %w", err)
	}
	return cleanup()
}

// OnTrainEnd implements keras.Callback: when training completed, it
// deletes the backup (and the directory, if that leaves it empty).
func (c *BackupAndRestore) OnTrainEnd(keras.Logs) error {
	c.watch.stop()
	c.watch = nil
	if c.inEpoch || !c.s.deleteCheckpoint {
		return nil // interrupted: keep the backup to resume from
	}
	if !isChief(c.Model) {
		return nil // the chief deletes its backup (chief.go)
	}
	if err := os.Remove(c.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("callbacks: BackupAndRestore: %w", err)
	}
	_ = os.Remove(c.dir) // only if empty
	return nil
}
