package callbacks

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/gokeras/gokeras/keras"
)

// ErrPreempted is the error Fit returns (wrapped, errors.Is) when
// BackupAndRestore with SaveBeforePreemption backed up because a worker
// was told it would be preempted: the backup is written on every worker
// at the same batch and the program should exit; launched again with the
// same BackupAndRestore, Fit resumes at the next batch. TensorFlow's
// PreemptionCheckpointHandler exits the process itself; a Go program
// decides (examples/multi_worker exits with status 0, so that a cluster
// manager restarts the job, not the failed task).
var ErrPreempted = errors.New("preempted: backed up to resume")

// preemptionWatch is SaveBeforePreemption's notice: SIGTERM, caught while
// Fit runs (a second SIGTERM kills the process, as without the callback,
// so that a stuck worker can still be stopped), and the user's watcher.
type preemptionWatch struct {
	signals chan os.Signal
	done    chan struct{}
	noticed atomic.Bool
	watcher func() bool
}

func startPreemptionWatch(watcher func() bool) *preemptionWatch {
	w := &preemptionWatch{signals: make(chan os.Signal, 1), done: make(chan struct{}), watcher: watcher}
	signal.Notify(w.signals, syscall.SIGTERM)
	go func() {
		select {
		case <-w.signals:
			w.noticed.Store(true)
			signal.Reset(syscall.SIGTERM)
		case <-w.done:
		}
	}()
	return w
}

// stop ends the watch: SIGTERM kills the process again.
func (w *preemptionWatch) stop() {
	if w == nil {
		return
	}
	signal.Stop(w.signals)
	close(w.done)
}

// local reports whether this worker has a notice.
func (w *preemptionWatch) local() bool {
	if w.noticed.Load() {
		return true
	}
	if w.watcher != nil && w.watcher() {
		w.noticed.Store(true)
		return true
	}
	return false
}

// stateSummer is the strategy of a model that trains across processes
// (distribute.MultiWorkerMirroredStrategy's replicas, which keras uses to
// sum the logged metrics over the workers).
type stateSummer interface {
	SumStates(vals []float64) ([]float64, error)
}

// agreed reports whether any worker of m's cluster has a notice. Every
// worker calls it at the end of the same batch, so the collective lines
// up and every worker decides alike; a single process asks only itself.
func (w *preemptionWatch) agreed(m *keras.Model) (bool, error) {
	flag := 0.0
	if w.local() {
		flag = 1
	}
	if _, multi := clusterOf(m); multi {
		ss, ok := m.Strategy().(stateSummer)
		if !ok {
			return false, fmt.Errorf("callbacks: BackupAndRestore: save_before_preemption: the strategy %T cannot tell the workers about a preemption", m.Strategy())
		}
		sum, err := ss.SumStates([]float64{flag})
		if err != nil {
			return false, fmt.Errorf("callbacks: BackupAndRestore: save_before_preemption: %w", err)
		}
		flag = sum[0]
	}
	return flag > 0, nil
}
