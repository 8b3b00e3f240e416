package distribute_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/mpi/mpirun"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// lastBatch records the last (epoch, batch) Fit trained, and the first.
type lastBatch struct {
	keras.CallbackBase
	epoch              int
	first, last        [2]int
	seen               bool
	termEpoch, termBat int // SIGTERM this process before that batch (-1: never)
}

func (l *lastBatch) OnEpochBegin(e int, _ keras.Logs) error { l.epoch = e; return nil }
func (l *lastBatch) OnTrainBatchBegin(b int, _ keras.Logs) error {
	if l.epoch == l.termEpoch && b == l.termBat {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}
func (l *lastBatch) OnTrainBatchEnd(b int, _ keras.Logs) error {
	if !l.seen {
		l.first, l.seen = [2]int{l.epoch, b}, true
	}
	l.last = [2]int{l.epoch, b}
	return nil
}

// TestMWWorkerPreempt is one worker of TestMultiWorkerMPI/Preemption: Fit
// with BackupAndRestore(SaveBeforePreemption); with GOKERAS_MW_PREEMPT=1
// the last rank gets a SIGTERM before epoch 2's batch 1. Every rank
// writes where it stopped (or its weights, when it finished).
func TestMWWorkerPreempt(t *testing.T) {
	if !mpirun.Worker() {
		t.Skip("runs under mpirun (TestMultiWorkerMPI launches it)")
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.CollectiveTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	exit := s.Scope()
	model := smallCNN(t, 3)
	err = model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9)),
		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
	})
	exit()
	if err != nil {
		t.Fatal(err)
	}
	rec := &lastBatch{termEpoch: -1}
	if os.Getenv("GOKERAS_MW_PREEMPT") == "1" && s.Rank() == s.NumWorkers()-1 {
		rec.termEpoch, rec.termBat = 2, 1
	}
	backup := callbacks.NewBackupAndRestore(os.Getenv("GOKERAS_MW_BACKUP"), callbacks.SaveBeforePreemption(true))
	x, y := images(23, 8, 8, 4) // 3 batches an epoch
	out, rank := os.Getenv("GOKERAS_MW_OUT"), strconv.Itoa(s.Rank())
	_, err = model.Fit(x, y, keras.FitConfig{Epochs: 4, BatchSize: 10, Seed: 5, Verbose: keras.VerboseSilent,
		Callbacks: []keras.Callback{rec, backup}})
	if errors.Is(err, callbacks.ErrPreempted) {
		t.Logf("rank %s: %v", rank, err)
		if err := os.WriteFile(filepath.Join(out, "preempted_rank"+rank), fmt.Appendf(nil, "%d %d", rec.last[0], rec.last[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	writeFloats(t, filepath.Join(out, "weights_rank"+rank), flatWeights(model.Weights()))
	if err := os.WriteFile(filepath.Join(out, "first_rank"+rank), fmt.Appendf(nil, "%d %d", rec.first[0], rec.first[1]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mpiPreemption: a SIGTERM to one worker mid-epoch makes every worker
// back up at the end of the same batch and exit cleanly (the job
// succeeds); launched again, every worker resumes at the next batch and
// ends bitwise with the weights of an uninterrupted run.
func mpiPreemption(t *testing.T, bin string) {
	const np = 2
	run := func(backup, out string, preempt bool) mpirun.Result {
		p := "0"
		if preempt {
			p = "1"
		}
		return mpirun.Run(np, bin, "^TestMWWorkerPreempt$", 60*time.Second,
			"GOKERAS_MW_BACKUP="+backup, "GOKERAS_MW_OUT="+out, "GOKERAS_MW_PREEMPT="+p)
	}
	refOut := t.TempDir()
	mpirun.Check(t, run(filepath.Join(t.TempDir(), "backup"), refOut, false), "uninterrupted run")

	out, backup := t.TempDir(), filepath.Join(t.TempDir(), "backup")
	mpirun.Check(t, run(backup, out, true), "preempted run (every worker backs up and returns)")
	var stops []string
	for rank := 0; rank < np; rank++ {
		b, err := os.ReadFile(filepath.Join(out, "preempted_rank"+strconv.Itoa(rank)))
		if err != nil {
			t.Fatalf("rank %d was not preempted: %v", rank, err)
		}
		stops = append(stops, string(b))
	}
	if stops[0] != stops[1] {
		t.Fatalf("the workers stopped at different batches: %q", stops)
	}
	var epoch, batch int
	if _, err := fmt.Sscanf(stops[0], "%d %d", &epoch, &batch); err != nil || epoch != 2 || batch < 1 {
		t.Fatalf("the workers stopped after epoch %d batch %d (%v), want epoch 2, batch 1 or later", epoch, batch, err)
	}
	t.Logf("both workers backed up after epoch %d, batch %d (0-based)", epoch, batch)
	if _, err := os.Stat(filepath.Join(backup, callbacks.BackupFile)); err != nil {
		t.Fatalf("no backup after the preemption: %v", err)
	}
	next := fmt.Sprintf("%d %d", epoch, batch+1)
	if batch+1 == 3 {
		next = fmt.Sprintf("%d 0", epoch+1)
	}
	mpirun.Check(t, run(backup, out, false), "resumed run")
	for rank := 0; rank < np; rank++ {
		r := strconv.Itoa(rank)
		if first, _ := os.ReadFile(filepath.Join(out, "first_rank"+r)); string(first) != next {
			t.Errorf("rank %d resumed at %q, want %q", rank, first, next)
		}
		got, want := readFloats(t, filepath.Join(out, "weights_rank"+r)), readFloats(t, filepath.Join(refOut, "weights_rank"+r))
		if !slices.Equal(got, want) {
			t.Errorf("rank %d: the resumed weights differ from the uninterrupted run's (relative %.3g)", rank, relDiff(got, want))
		}
	}
}
