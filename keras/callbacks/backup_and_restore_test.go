package callbacks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/keras"
)

func TestBackupAndRestoreResumes(t *testing.T) {
	x, y := data(40, 1) // 5 batches per epoch, shuffled per epoch
	const epochs = 5

	// Reference: an uninterrupted run.
	ref := model(t, 1, nil)
	refHist, err := ref.Fit(x, y, quiet(epochs))
	if err != nil {
		t.Fatal(err)
	}

	// Interrupted in the middle of epoch 2 (0-based): epochs 0 and 1 are backed up.
	dir := filepath.Join(t.TempDir(), "backup")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	epoch := -1
	stopper := &LambdaCallback{
		EpochBegin: func(e int, _ keras.Logs) error { epoch = e; return nil },
		TrainBatchEnd: func(b int, _ keras.Logs) error {
			if epoch == 2 && b == 2 {
				cancel()
			}
			return nil
		},
	}
	m := model(t, 1, nil)
	cfg := quiet(epochs, NewBackupAndRestore(dir), stopper)
	cfg.Context = ctx
	h, err := m.Fit(x, y, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Fit: %v", err)
	}
	if !reflect.DeepEqual(h.Epoch, []int{0, 1}) {
		t.Fatalf("interrupted run completed epochs %v", h.Epoch)
	}
	if _, err := os.Stat(filepath.Join(dir, BackupFile)); err != nil {
		t.Fatalf("backup not kept after the interruption: %v", err)
	}

	// A new process: another model object, other initial weights.
	var seen []int
	recorder := &LambdaCallback{EpochBegin: func(e int, _ keras.Logs) error { seen = append(seen, e); return nil }}
	m2 := model(t, 99, nil)
	h2, err := m2.Fit(x, y, quiet(epochs, NewBackupAndRestore(dir), recorder))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, []int{2, 3, 4}) || !reflect.DeepEqual(h2.Epoch, []int{2, 3, 4}) {
		t.Errorf("resumed run ran epochs %v (history %v)", seen, h2.Epoch)
	}
	if !sameWeights(ref, m2) {
		t.Error("resumed training does not end where the uninterrupted run does")
	}
	if got, want := h2.History["loss"], refHist.History["loss"][2:]; !reflect.DeepEqual(got, want) {
		t.Errorf("resumed losses %v, want %v", got, want)
	}
	if got, want := m2.Optimizer().Iterations(), ref.Optimizer().Iterations(); got != want {
		t.Errorf("iterations %d, want %d", got, want)
	}
	// Completed: the backup and its directory are gone.
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup directory left after completion: %v", err)
	}
}

func TestBackupAndRestoreOptions(t *testing.T) {
	x, y := data(16, 1)
	dir := t.TempDir()
	m := model(t, 1, nil)
	if _, err := m.Fit(x, y, quiet(2, NewBackupAndRestore(dir, DeleteCheckpoint(false)))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, BackupFile)
	fresh := model(t, 2, nil)
	epoch, err := fresh.RestoreCheckpoint(path)
	if err != nil || epoch != 2 || !sameWeights(m, fresh) {
		t.Errorf("kept backup: epoch %d, %v", epoch, err)
	}
	// A run asked for no more epochs than are backed up does nothing more.
	h, err := fresh.Fit(x, y, quiet(2, NewBackupAndRestore(dir)))
	if err != nil || len(h.Epoch) != 0 {
		t.Errorf("nothing left to do: %v epochs, %v", h.Epoch, err)
	}
	for _, f := range []any{0, -1, "batch", "often", 2.5} {
		if err := NewBackupAndRestore(dir, SaveFreq(f)).Err(); err == nil {
			t.Errorf("save_freq %v accepted", f)
		}
	}
	if err := NewBackupAndRestore(dir, SaveFreq(10)).Err(); err != nil {
		t.Errorf("save_freq 10: %v", err)
	}
	if err := NewBackupAndRestore(dir, PreemptionWatcher(func() bool { return false })).Err(); err == nil {
		t.Error("a PreemptionWatcher without SaveBeforePreemption accepted")
	}
	if err := NewBackupAndRestore("").Err(); err == nil {
		t.Error("empty backup_dir accepted")
	}
	// A corrupt backup is an error, not a silent fresh start.
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup left after a completed run: %v", err)
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(path, []byte("junk"), 0o644)
	if _, err := model(t, 1, nil).Fit(x, y, quiet(1, NewBackupAndRestore(dir))); err == nil {
		t.Error("corrupt backup accepted")
	}
}
