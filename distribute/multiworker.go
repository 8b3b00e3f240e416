package distribute

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/mpi"
	"github.com/gokeras/gokeras/ops"
)

// MultiWorkerMirroredStrategy is tf.distribute.MultiWorkerMirroredStrategy:
// synchronous training over several processes (workers), each with one or
// more local replicas, gradients summed over all of them every step. It
// runs on MPI: launch the program with mpirun, srun or a Kubernetes
// MPIJob, built with the mpi tag (go build -tags mpi). A single process
// without a cluster around it is a cluster of one worker.
//
// Replicas first sum in process (in replica order), then one MPI call per
// pack of gradients sums across workers, so every copy of every variable
// on every worker gets bitwise the same update. The optimizer's gradients
// are summed in buckets while the backward pass still runs (see
// [CommunicationOptions.NoOverlap]), with bitwise the same result. Variables are broadcast
// from the chief (rank 0) before their first step, so all workers start
// identical. Every cross-worker collective has a timeout (see
// [CommunicationOptions]): when it passes, the ranks that never arrived
// are named on stderr and the job is aborted, so no worker hangs.
//
// Fit trains each worker on its rows of every global batch (the global
// batch split over all replicas in rank order, as MirroredStrategy splits
// over its replicas); Evaluate and Predict shard the same way, and
// Predict gathers every worker's rows. The loss and metrics that Fit and
// Evaluate log are summed over the workers before their result, so every
// worker logs those of the whole global batch. Like Fit, they are
// collectives: every worker must call them, with the same data. Only the
// chief writes checkpoints, backups and logs (engine.Cluster).
//
// Call [MultiWorkerMirroredStrategy.Close] when done: it shuts MPI down.
type MultiWorkerMirroredStrategy struct {
	local    *MirroredStrategy // this process's replicas, for dataset splitting
	coll     collective
	resolver ClusterResolver
	opts     CommunicationOptions
	reducer  *allReducer
	replicas *workerReplicas
	// overlap all-reduces the optimizer's gradients during the backward
	// pass (allreduce_overlap.go; nil: after it, in the hook), across
	// workers on ovColl, a stream apart from coll's.
	overlap *overlapper
	ovColl  collective
	workers int
	nLocal  int

	// skipCrossWorker leaves the cross-worker all-reduce out (replicas
	// still sum in process): for measuring what it costs a step only.
	skipCrossWorker bool

	mu     sync.Mutex // one step at a time
	syncMu sync.Mutex
	synced map[*ops.Variable]bool
	closed bool
}

var _ engine.Cluster = (*MultiWorkerMirroredStrategy)(nil)

// MultiWorkerOption configures NewMultiWorkerMirroredStrategy.
type MultiWorkerOption func(*multiWorkerConfig)

type multiWorkerConfig struct {
	devices  []string
	opts     CommunicationOptions
	resolver ClusterResolver
}

// LocalDevices sets this worker's replicas (default: as
// NewMirroredStrategy picks, one per GPU or logical CPU). Every worker
// must have as many.
func LocalDevices(devices ...string) MultiWorkerOption {
	return func(c *multiWorkerConfig) { c.devices = append([]string(nil), devices...) }
}

// Communication sets the communication options (TF's
// communication_options).
func Communication(o CommunicationOptions) MultiWorkerOption {
	return func(c *multiWorkerConfig) { c.opts = o }
}

// CollectiveTimeout bounds every cross-worker collective (default 5
// minutes); it overrides CommunicationOptions.Timeout.
func CollectiveTimeout(d time.Duration) MultiWorkerOption {
	return func(c *multiWorkerConfig) { c.opts.Timeout = d }
}

// Resolver sets the cluster resolver (TF's cluster_resolver); by default
// ResolveCluster reads TF_CONFIG, OpenMPI's, MPICH's or Slurm's
// environment.
func Resolver(r ClusterResolver) MultiWorkerOption {
	return func(c *multiWorkerConfig) { c.resolver = r }
}

// launchedByMPI reports whether an MPI launcher started this process.
func launchedByMPI() bool {
	for _, k := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"} {
		if _, ok := os.LookupEnv(k); ok {
			return true
		}
	}
	return false
}

// shareMachine prepares workers that share a machine (OpenMPI's
// OMPI_COMM_WORLD_LOCAL_SIZE > 1) for it, unless the user decided
// otherwise: each takes its share of the cores (GOMAXPROCS, which the
// kernels size their parallelism by), and MPI yields the core while it
// waits (mpi_yield_when_idle) instead of spinning on it.
func shareMachine() {
	local, err := strconv.Atoi(os.Getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
	if err != nil || local < 2 {
		return
	}
	if _, set := os.LookupEnv("OMPI_MCA_mpi_yield_when_idle"); !set {
		os.Setenv("OMPI_MCA_mpi_yield_when_idle", "1")
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(max(1, runtime.NumCPU()/local))
	}
}

// yieldWhileOverlapping lets MPI yield the core while it waits
// (mpi_yield_when_idle), unless the user decided otherwise: the
// overlapped all-reduce waits in MPI on a goroutine of its own while the
// backward pass computes on the same cores, and a spinning wait took half
// of a one-core worker's time from it (the seed ResNet's step on
// tools/netcluster.sh: 480 ms spinning, 414 ms yielding, 2 workers at
// 1 Gbit/s).
func yieldWhileOverlapping() {
	if _, set := os.LookupEnv("OMPI_MCA_mpi_yield_when_idle"); !set {
		os.Setenv("OMPI_MCA_mpi_yield_when_idle", "1")
	}
}

// NewMultiWorkerMirroredStrategy joins the cluster this process belongs
// to. Every worker must call it (it is a collective), in the same order
// relative to the other collectives.
func NewMultiWorkerMirroredStrategy(opts ...MultiWorkerOption) (*MultiWorkerMirroredStrategy, error) {
	var cfg multiWorkerConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	co, err := cfg.opts.withDefaults()
	if err != nil {
		return nil, err
	}
	res := cfg.resolver
	if res == nil {
		if res, err = ResolveCluster(); err != nil {
			return nil, fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: %w", err)
		}
	}
	if res.TaskType() == "ps" {
		return nil, fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: %s: this task is a \"ps\": parameter servers belong to NewParameterServerStrategy; MultiWorkerMirroredStrategy runs \"chief\" and \"worker\" tasks", res.Name())
	}
	var coll collective = localCollective{}
	// A launcher's job of one process runs without MPI when the build
	// has none; a cluster of several workers needs it.
	if res.WorldSize() > 1 || (launchedByMPI() && mpi.Available()) {
		shareMachine()
		if !co.NoOverlap {
			yieldWhileOverlapping()
		}
		mc, err := newMPICollective(co)
		if err != nil {
			if errors.Is(err, mpi.ErrNotBuilt) {
				return nil, fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: %s describes a cluster of %d workers, but this program was built without the mpi tag: go build -tags mpi (needs OpenMPI: apt-get install libopenmpi-dev openmpi-bin)", res.Name(), res.WorldSize())
			}
			return nil, fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: %w", err)
		}
		coll = mc
	}
	// What can go wrong on one worker is agreed on by all, so that every
	// worker returns an error instead of some waiting for the others.
	local, localErr := NewMirroredStrategy(cfg.devices...)
	nLocal := int64(-1)
	if localErr == nil {
		nLocal = int64(local.NumReplicasInSync())
	}
	checkErr := CheckAgainst(res, coll.rank(), coll.size())
	bad := int64(0)
	if checkErr != nil {
		bad = 1
	}
	all, err := coll.allGatherInt64([]int64{nLocal, bad})
	if err != nil {
		_ = coll.close()
		return nil, fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: %w", err)
	}
	fail := func(e error) (*MultiWorkerMirroredStrategy, error) {
		_ = coll.close()
		return nil, e
	}
	switch {
	case localErr != nil:
		return fail(fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: %w", localErr))
	case checkErr != nil:
		return fail(checkErr)
	}
	var wrong, noReplicas []int
	for r := 0; r < len(all)/2; r++ {
		if all[2*r+1] != 0 {
			wrong = append(wrong, r)
		}
		if all[2*r] < 0 {
			noReplicas = append(noReplicas, r)
		}
	}
	switch {
	case len(wrong) > 0:
		return fail(fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: the cluster (%s) disagrees with MPI on rank(s) %s; see their errors", res.Name(), rankList(wrong)))
	case len(noReplicas) > 0:
		return fail(fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: rank(s) %s could not set up their local replicas; see their errors", rankList(noReplicas)))
	}
	for r := 0; r < len(all)/2; r++ {
		if all[2*r] != nLocal {
			return fail(fmt.Errorf("distribute: NewMultiWorkerMirroredStrategy: worker rank %d has %d local replicas but rank %d has %d: every worker needs as many", r, all[2*r], coll.rank(), nLocal))
		}
	}
	s := &MultiWorkerMirroredStrategy{
		local: local, coll: coll, resolver: res, opts: co,
		workers: coll.size(), nLocal: int(nLocal),
		synced: map[*ops.Variable]bool{},
	}
	s.reducer = newAllReducer(s.nLocal)
	s.replicas = &workerReplicas{s}
	if mc, ok := coll.(*mpiCollective); ok {
		if ov := mc.overlapStream(); ov != nil {
			s.ovColl = ov
		}
	}
	if s.NumReplicasInSync() > 1 && (s.workers == 1 || s.ovColl != nil) {
		s.overlap = newOverlapper(s)
	}
	return s, nil
}

// NumReplicasInSync is the number of replicas over all workers: workers
// times local replicas.
func (s *MultiWorkerMirroredStrategy) NumReplicasInSync() int { return s.workers * s.nLocal }

// NumLocalReplicas is the number of replicas of this worker.
func (s *MultiWorkerMirroredStrategy) NumLocalReplicas() int { return s.nLocal }

// Rank is this worker's rank: 0 is the chief.
func (s *MultiWorkerMirroredStrategy) Rank() int { return s.coll.rank() }

// NumWorkers implements engine.Cluster: the number of worker processes.
func (s *MultiWorkerMirroredStrategy) NumWorkers() int { return s.workers }

// IsChief implements engine.Cluster: rank 0 is the chief.
func (s *MultiWorkerMirroredStrategy) IsChief() bool { return s.coll.rank() == 0 }

// TaskType implements engine.Cluster: "chief" or "worker", as the cluster
// resolver says.
func (s *MultiWorkerMirroredStrategy) TaskType() string { return s.resolver.TaskType() }

// TaskID implements engine.Cluster.
func (s *MultiWorkerMirroredStrategy) TaskID() int { return s.resolver.TaskID() }

// ClusterResolver returns the resolver the strategy was made with.
func (s *MultiWorkerMirroredStrategy) ClusterResolver() ClusterResolver { return s.resolver }

// Devices returns this worker's replicas' devices.
func (s *MultiWorkerMirroredStrategy) Devices() []string { return s.local.Devices() }

// Scope makes the strategy current until exit is called: variables,
// models and optimizers created in it are mirrored over the local
// replicas and kept identical over the workers.
func (s *MultiWorkerMirroredStrategy) Scope() (exit func()) { return engine.EnterScope(s.replicas) }

// Barrier returns once every worker has called it (TF's
// experimental_barrier).
func (s *MultiWorkerMirroredStrategy) Barrier() error { return s.coll.barrier() }

// Close shuts MPI down (MPI_Finalize) after a last barrier; call it once
// every worker is done with the strategy.
func (s *MultiWorkerMirroredStrategy) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.overlap != nil {
		s.overlap.close()
	}
	if err := s.coll.barrier(); err != nil {
		return err
	}
	return s.coll.close()
}

// globalOffset is the global id of this worker's first replica.
func (s *MultiWorkerMirroredStrategy) globalOffset() int { return s.coll.rank() * s.nLocal }

// allReduce is the hierarchical all-reduce of local replica id: the
// local replicas sum in process, replica 0 sums across workers, and the
// others copy its result.
func (s *MultiWorkerMirroredStrategy) allReduce(id int, bufs [][]float32) error {
	if err := s.reducer.allReduceSum(id, bufs); err != nil {
		return err
	}
	if s.workers == 1 || s.skipCrossWorker {
		return nil
	}
	if id == 0 {
		if err := s.coll.allReduceSum(bufs); err != nil {
			s.reducer.abort(err)
			return err
		}
	}
	if err := s.reducer.barrier(); err != nil {
		return err
	}
	if id != 0 {
		for i, b := range s.reducer.bufs[0] {
			copy(bufs[i], b)
		}
	}
	return s.reducer.barrier()
}
