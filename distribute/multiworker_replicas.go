package distribute

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/mpi"
	"github.com/gokeras/gokeras/ops"
)

// workerReplicas is the strategy as package keras sees it (what Scope
// enters and model.Strategy returns): NumReplicasInSync counts the local
// replicas, which RunReplicas runs; replica contexts report the global
// number of replicas and reduce across workers.
type workerReplicas struct{ s *MultiWorkerMirroredStrategy }

var (
	_ engine.Strategy = (*workerReplicas)(nil)
	_ engine.Cluster  = (*workerReplicas)(nil)
)

func (w *workerReplicas) NumReplicasInSync() int { return w.s.nLocal }
func (w *workerReplicas) GlobalReplicas() int    { return w.s.NumReplicasInSync() }
func (w *workerReplicas) IsChief() bool          { return w.s.IsChief() }
func (w *workerReplicas) TaskType() string       { return w.s.TaskType() }
func (w *workerReplicas) TaskID() int            { return w.s.TaskID() }
func (w *workerReplicas) NumWorkers() int        { return w.s.workers }

// Strategy returns the MultiWorkerMirroredStrategy.
func (w *workerReplicas) Strategy() *MultiWorkerMirroredStrategy { return w.s }

// RunReplicas runs fn on every local replica concurrently. A failure on a
// worker of a multi-worker job aborts the job: the other workers would
// wait for its collectives.
func (w *workerReplicas) RunReplicas(fn func(rc ops.ReplicaContext) error) error {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := make([]error, s.nLocal)
	var wg sync.WaitGroup
	for r := 0; r < s.nLocal; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[r] = fmt.Errorf("distribute: replica %d panicked: %v", s.globalOffset()+r, p)
					s.reducer.abort(errAborted)
					s.abortOverlap()
				}
			}()
			if err := fn(workerReplicaCtx{id: r, s: s}); err != nil {
				errs[r] = err
				s.reducer.abort(errAborted)
				s.abortOverlap()
			}
		}(r)
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, errAborted)) {
			first = err
		}
	}
	if first != nil {
		s.reducer.reset()
		if s.overlap != nil {
			s.overlap.reset()
		}
		if s.workers > 1 {
			fmt.Fprintf(os.Stderr, "distribute: MultiWorkerMirroredStrategy: rank %d: a step failed: %v; aborting the job (the other workers would wait for this one)\n", s.coll.rank(), first)
			mpi.Abort(1)
		}
	}
	return first
}

// ShardBatch returns this worker's rows of a global batch: the global
// batch is split over all replicas (balanced, larger parts first) and a
// worker takes the parts of its replicas. A worker the batch leaves
// without rows gets nil: in training it runs the step's collectives with
// zero gradients (package keras), as TensorFlow feeds it an empty batch;
// in evaluation and prediction it skips the step.
func (w *workerReplicas) ShardBatch(batch []ops.Value, training bool) ([]ops.Value, error) {
	return shardBatch(batch, w.s.workers, w.s.nLocal, w.s.coll.rank(), true)
}

// replicaOffsetKey is the trace attribute holding the global id of the
// worker's first replica (ReplicaContext.ReplicaID adds it).
type replicaOffsetKey struct{}

// ReplicaAttrs gives local replica r's traces the global id of the
// worker's first replica.
func (w *workerReplicas) ReplicaAttrs(r int) map[any]any {
	return map[any]any{replicaOffsetKey{}: w.s.globalOffset()}
}

// SumStates sums vals elementwise over the workers (in float64, in rank
// order, so every worker gets the same bits): the metric states package
// keras logs.
func (w *workerReplicas) SumStates(vals []float64) ([]float64, error) {
	return w.s.sumFloat64(vals)
}

// GatherRows concatenates every worker's rows of each output in rank
// order (a worker without rows passes nil): Predict's results.
func (w *workerReplicas) GatherRows(local []ops.Value) ([]ops.Value, error) {
	return w.s.gatherRows(local)
}

// SyncVariables broadcasts the chief's value of every variable not seen
// before to every worker and copies it to every local copy, so all
// replicas everywhere start identical. Package keras calls it before a
// step's first run.
func (w *workerReplicas) SyncVariables(vars []*ops.Variable) error { return w.s.syncVariables(vars) }

func (s *MultiWorkerMirroredStrategy) syncVariables(vars []*ops.Variable) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	var fresh []*ops.Variable
	for _, v := range vars {
		if !s.synced[v] {
			fresh = append(fresh, v)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	bufs := make([][]float32, len(fresh))
	for i, v := range fresh {
		bufs[i] = v.Data(0)
	}
	if err := s.coll.broadcast(bufs, 0); err != nil {
		return fmt.Errorf("distribute: broadcasting the chief's initial variables: %w", err)
	}
	for _, v := range fresh {
		for r := 1; r < v.Replicas(); r++ {
			copy(v.Data(r), v.Data(0))
		}
		s.synced[v] = true
	}
	return nil
}

// BroadcastVariables copies the chief's values of vars to every worker
// (and every local copy), as Horovod's broadcast_variables: for
// variables changed outside training, such as weights loaded on the
// chief only. Every worker must call it with the same variables.
func (s *MultiWorkerMirroredStrategy) BroadcastVariables(vars []*ops.Variable) error {
	s.syncMu.Lock()
	for _, v := range vars {
		delete(s.synced, v)
	}
	s.syncMu.Unlock()
	return s.syncVariables(vars)
}

// workerReplicaCtx is the ops.ReplicaContext of local replica id.
type workerReplicaCtx struct {
	id int
	s  *MultiWorkerMirroredStrategy
}

func (c workerReplicaCtx) ReplicaID() int   { return c.id }
func (c workerReplicaCtx) NumReplicas() int { return c.s.NumReplicasInSync() }
func (c workerReplicaCtx) AllReduceSum(bufs [][]float32) error {
	return c.s.allReduce(c.id, bufs)
}

// Executor implements engine.DeviceContext: a local replica on a GPU runs
// its programs there, as under MirroredStrategy (nil: the CPU).
func (c workerReplicaCtx) Executor() engine.Executor {
	if c.s.local.execs == nil {
		return nil
	}
	return c.s.local.execs[c.id]
}
