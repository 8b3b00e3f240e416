package callbacks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// dropoutModel is a compiled MLP with dropout, so that a resumed run
// equals the uninterrupted one only if the random generators' states are
// restored with the weights.
func dropoutModel(t *testing.T, seed uint64) *keras.Model {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(seed)
	m, err := keras.NewSequential(
		layers.NewDense(16, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDropout(0.3, layers.WithSeed(5)),
		layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9)),
		Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		t.Fatal(err)
	}
	return m
}

// batchCounter records which (epoch, batch) pairs Fit trains.
type batchCounter struct {
	keras.CallbackBase
	epoch   int
	batches [][2]int
}

func (c *batchCounter) OnEpochBegin(e int, _ keras.Logs) error { c.epoch = e; return nil }
func (c *batchCounter) OnTrainBatchEnd(b int, _ keras.Logs) error {
	c.batches = append(c.batches, [2]int{c.epoch, b})
	return nil
}

// checkResumes resumes from dir on a fresh model (other initial weights)
// and checks that it trains the batches after startEpoch/startBatch and
// ends bitwise where ref ended, with ref's step count.
func checkResumes(t *testing.T, ref *keras.Model, dir string, startEpoch, startBatch, epochs int, opts ...Option) {
	t.Helper()
	x, y := data(40, 1)
	seen := &batchCounter{}
	m := dropoutModel(t, 99)
	if _, err := m.Fit(x, y, quiet(epochs, NewBackupAndRestore(dir, opts...), seen)); err != nil {
		t.Fatal(err)
	}
	if len(seen.batches) == 0 || seen.batches[0] != [2]int{startEpoch, startBatch} {
		t.Fatalf("the resumed run trained %v first, want epoch %d batch %d", seen.batches, startEpoch, startBatch)
	}
	if want := (epochs-startEpoch)*5 - startBatch; len(seen.batches) != want {
		t.Errorf("the resumed run trained %d batches, want %d", len(seen.batches), want)
	}
	if !sameWeights(ref, m) {
		t.Error("the resumed run does not end bitwise where the uninterrupted run does")
	}
	if got, want := m.Optimizer().Iterations(), ref.Optimizer().Iterations(); got != want {
		t.Errorf("iterations %d, want %d", got, want)
	}
}

// SaveFreq(n) backs up every n batches (across epochs, as Keras counts,
// and not at the epochs' ends), and Fit resumes at the batch after the
// backup, bitwise as if never interrupted (the dropout masks included):
// 40 examples in batches of 8, 5 batches an epoch, backups after global
// batches 3, 6 (epoch 1, batch 0) and 9; interrupted before epoch 1's
// batch 3, the run resumes at its batch 1.
func TestBackupAndRestoreSaveFreqResumesMidEpoch(t *testing.T) {
	x, y := data(40, 1)
	const epochs = 3
	ref := dropoutModel(t, 1)
	if _, err := ref.Fit(x, y, quiet(epochs)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "backup")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	epoch := -1
	stopper := &LambdaCallback{
		EpochBegin: func(e int, _ keras.Logs) error { epoch = e; return nil },
		TrainBatchEnd: func(b int, _ keras.Logs) error {
			if epoch == 1 && b == 2 {
				cancel() // Fit stops before batch 3
			}
			return nil
		},
	}
	m := dropoutModel(t, 1)
	cfg := quiet(epochs, NewBackupAndRestore(dir, SaveFreq(3)), stopper)
	cfg.Context = ctx
	if _, err := m.Fit(x, y, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Fit: %v", err)
	}
	fresh := dropoutModel(t, 7)
	if e, s, err := fresh.RestoreCheckpointAt(filepath.Join(dir, BackupFile)); err != nil || e != 1 || s != 1 {
		t.Fatalf("the backup is of epoch %d, step %d (%v); want epoch 1 (0-based), step 1", e, s, err)
	}
	checkResumes(t, ref, dir, 1, 1, epochs, SaveFreq(3))
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup directory left after completion: %v", err)
	}
}

// A preemption notice (a PreemptionWatcher here) makes BackupAndRestore
// back up at the end of that batch and stop Fit with ErrPreempted; the
// relaunch resumes at the next batch, bitwise.
func TestBackupAndRestorePreemptionWatcher(t *testing.T) {
	x, y := data(40, 1)
	const epochs = 3
	ref := dropoutModel(t, 1)
	if _, err := ref.Fit(x, y, quiet(epochs)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "backup")
	calls := 0
	notice := func() bool { calls++; return calls == 7 } // after epoch 1's batch 1
	seen := &batchCounter{}
	m := dropoutModel(t, 1)
	_, err := m.Fit(x, y, quiet(epochs, seen, NewBackupAndRestore(dir, SaveBeforePreemption(true), PreemptionWatcher(notice))))
	if !errors.Is(err, ErrPreempted) {
		t.Fatalf("Fit with a preemption notice: %v, want ErrPreempted", err)
	}
	if last := seen.batches[len(seen.batches)-1]; last != [2]int{1, 1} {
		t.Errorf("the preempted run stopped after %v, want epoch 1 batch 1", last)
	}
	checkResumes(t, ref, dir, 1, 2, epochs, SaveBeforePreemption(true))
}

// SIGTERM while Fit runs is a preemption notice: the process is not
// killed, it backs up at the end of a batch (the signal arrives
// asynchronously: that one or a later one), returns ErrPreempted, and the
// relaunch resumes there bitwise.
func TestBackupAndRestoreSIGTERM(t *testing.T) {
	x, y := data(40, 1)
	const epochs = 3
	ref := dropoutModel(t, 1)
	if _, err := ref.Fit(x, y, quiet(epochs)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "backup")
	epoch := -1
	term := &LambdaCallback{
		EpochBegin: func(e int, _ keras.Logs) error { epoch = e; return nil },
		TrainBatchBegin: func(b int, _ keras.Logs) error {
			if epoch == 0 && b == 3 {
				if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
					t.Error(err)
				}
				time.Sleep(20 * time.Millisecond) // the signal reaches its goroutine
			}
			return nil
		},
	}
	seen := &batchCounter{}
	m := dropoutModel(t, 1)
	_, err := m.Fit(x, y, quiet(epochs, term, seen, NewBackupAndRestore(dir, SaveBeforePreemption(true))))
	if !errors.Is(err, ErrPreempted) {
		t.Fatalf("Fit with a SIGTERM: %v, want ErrPreempted", err)
	}
	last := seen.batches[len(seen.batches)-1]
	if last[0] != 0 || last[1] < 3 {
		t.Fatalf("the preempted run stopped after %v, want epoch 0 batch 3 or later", last)
	}
	next := [2]int{last[0], last[1] + 1}
	if next[1] == 5 {
		next = [2]int{1, 0}
	}
	seen2 := &batchCounter{}
	m2 := dropoutModel(t, 99)
	if _, err := m2.Fit(x, y, quiet(epochs, NewBackupAndRestore(dir, SaveBeforePreemption(true)), seen2)); err != nil {
		t.Fatal(err)
	}
	if seen2.batches[0] != next && !(next == [2]int{1, 0} && seen2.batches[0] == [2]int{1, 0}) {
		t.Errorf("resumed at %v, want %v", seen2.batches[0], next)
	}
	if !sameWeights(ref, m2) || !reflect.DeepEqual(m2.Optimizer().Iterations(), ref.Optimizer().Iterations()) {
		t.Error("the run resumed after SIGTERM does not end bitwise where the uninterrupted run does")
	}
}
