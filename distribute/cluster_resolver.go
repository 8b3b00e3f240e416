package distribute

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// ClusterResolver says where this process stands in a multi-worker job, as
// tf.distribute.cluster_resolver.ClusterResolver does: its rank among the
// workers, how many there are, its rank among the workers of its machine,
// and whether it is the chief (the worker that writes checkpoints and
// logs). [ResolveCluster] picks one from the environment; a
// MultiWorkerMirroredStrategy checks it against MPI with [CheckAgainst].
//
// Ranks follow TensorFlow's numbering of a MultiWorkerMirroredStrategy
// cluster: the chief, if any, is rank 0 and worker i is rank i+1; without
// a chief, worker i is rank i and worker 0 is the chief.
type ClusterResolver interface {
	// Name says where the resolver got its answer ("TF_CONFIG", "Slurm",
	// "OpenMPI", "MPICH", "single worker"); errors name it.
	Name() string
	// Rank is this process's rank in [0, WorldSize()).
	Rank() int
	// WorldSize is the number of workers (processes) training together.
	WorldSize() int
	// LocalRank is this process's rank among the workers on its machine.
	LocalRank() int
	// IsChief reports whether this process is the chief.
	IsChief() bool
	// TaskType is TensorFlow's task type: "chief", "worker", "ps" or "evaluator".
	TaskType() string
	// TaskID is the index of this process among the tasks of its type.
	TaskID() int
	// ClusterSpec returns the jobs' addresses, as tf.train.ClusterSpec; nil
	// when the launcher does not tell them (MPI, a single worker).
	ClusterSpec() ClusterSpec
}

// ClusterSpec maps a job name ("chief", "worker", "ps", "evaluator") to the
// addresses ("host:port") of its tasks, in task order, as
// tf.train.ClusterSpec.
type ClusterSpec map[string][]string

// NumTasks returns the number of tasks of job.
func (c ClusterSpec) NumTasks(job string) int { return len(c[job]) }

// Jobs returns the job names, sorted.
func (c ClusterSpec) Jobs() []string {
	jobs := make([]string, 0, len(c))
	for j := range c {
		jobs = append(jobs, j)
	}
	sort.Strings(jobs)
	return jobs
}

// TaskAddress returns the address of task id of job.
func (c ClusterSpec) TaskAddress(job string, id int) (string, error) {
	tasks, ok := c[job]
	if !ok {
		return "", fmt.Errorf("distribute: the cluster spec has no job %q (jobs: %v)", job, c.Jobs())
	}
	if id < 0 || id >= len(tasks) {
		return "", fmt.Errorf("distribute: the cluster spec's job %q has %d tasks, no task %d", job, len(tasks), id)
	}
	return tasks[id], nil
}

// MaxWorkers bounds the world size a resolver accepts, so that a corrupt
// environment cannot make it allocate without bound.
const MaxWorkers = 1 << 20

// ClusterError is a problem with the environment a [ClusterResolver] read:
// the source (TF_CONFIG, Slurm, OpenMPI, ...), the field (a JSON path or
// an environment variable) and what is wrong with it.
type ClusterError struct {
	Source  string
	Field   string
	Problem string
}

func (e *ClusterError) Error() string {
	if e.Field == "" {
		return "distribute: " + e.Source + ": " + e.Problem
	}
	return "distribute: " + e.Source + ": " + e.Field + ": " + e.Problem
}

func clusterErrorf(source, field, format string, args ...any) error {
	return &ClusterError{Source: source, Field: field, Problem: fmt.Sprintf(format, args...)}
}

// resolved is the answer of every resolver.
type resolved struct {
	name      string
	rank      int
	world     int
	localRank int
	chief     bool
	taskType  string
	taskID    int
	spec      ClusterSpec
}

func (r *resolved) Name() string             { return r.name }
func (r *resolved) Rank() int                { return r.rank }
func (r *resolved) WorldSize() int           { return r.world }
func (r *resolved) LocalRank() int           { return r.localRank }
func (r *resolved) IsChief() bool            { return r.chief }
func (r *resolved) TaskType() string         { return r.taskType }
func (r *resolved) TaskID() int              { return r.taskID }
func (r *resolved) ClusterSpec() ClusterSpec { return r.spec }

func (r *resolved) String() string {
	return fmt.Sprintf("%s: %s %d, rank %d of %d, local rank %d, chief %v", r.name, r.taskType, r.taskID, r.rank, r.world, r.localRank, r.chief)
}

// NewSingleWorkerResolver is the resolver of a process that is the whole
// cluster: rank 0 of 1, the chief, task worker 0.
func NewSingleWorkerResolver() ClusterResolver {
	return &resolved{name: "single worker", world: 1, chief: true, taskType: "worker"}
}

// ResolveCluster reads the environment of this process and returns the
// first resolver that applies: TF_CONFIG (when set and it lists a
// cluster), then
// OpenMPI's OMPI_COMM_WORLD_* variables, then MPICH's PMI_RANK and
// PMI_SIZE, then Slurm's SLURM_PROCID, else a single worker. An
// environment that names a resolver but is wrong (a TF_CONFIG that does
// not parse, a rank out of range) is an error, not a fall-through.
func ResolveCluster() (ClusterResolver, error) {
	return ResolveClusterFromEnv(os.LookupEnv)
}

// ResolveClusterFromEnv is [ResolveCluster] on the environment that
// lookup reads (os.LookupEnv for the process's own).
func ResolveClusterFromEnv(lookup func(string) (string, bool)) (ClusterResolver, error) {
	if v, ok := lookup("TF_CONFIG"); ok && strings.TrimSpace(v) != "" {
		r, err := NewTFConfigClusterResolver(v)
		if err != nil || r.ClusterSpec() != nil {
			return r, err
		}
		// A TF_CONFIG without a cluster says nothing: ask the others.
	}
	if _, ok := lookup("OMPI_COMM_WORLD_RANK"); ok {
		return NewMPIClusterResolver(lookup)
	}
	if _, ok := lookup("PMI_RANK"); ok {
		return NewMPIClusterResolver(lookup)
	}
	if _, ok := lookup("SLURM_PROCID"); ok {
		return NewSlurmClusterResolver(lookup)
	}
	return NewSingleWorkerResolver(), nil
}

// CheckAgainst returns an error, naming the resolver and what it read,
// when r does not agree with the rank and size MPI gave this process.
func CheckAgainst(r ClusterResolver, rank, size int) error {
	if r == nil {
		return nil
	}
	if r.WorldSize() == size && r.Rank() == rank {
		return nil
	}
	where := fmt.Sprintf("%s says this process is %s %d, rank %d of %d, but MPI says rank %d of %d", r.Name(), r.TaskType(), r.TaskID(), r.Rank(), r.WorldSize(), rank, size)
	switch {
	case r.Name() == "TF_CONFIG" && r.WorldSize() == size:
		return fmt.Errorf("distribute: %s: every process needs its own TF_CONFIG (under mpirun all processes inherit the same one; unset TF_CONFIG to use MPI's ranks)", where)
	case r.WorldSize() != size:
		return fmt.Errorf("distribute: %s: the cluster's size and the number of MPI processes differ (launch as many processes as the cluster has workers)", where)
	default:
		return fmt.Errorf("distribute: %s", where)
	}
}

// envInt reads an integer environment variable in [lo, hi).
func envInt(lookup func(string) (string, bool), source, name string, lo, hi int) (int, bool, error) {
	s, ok := lookup(name)
	if !ok {
		return 0, false, nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, true, clusterErrorf(source, name, "%q is not an integer", clip(s))
	}
	if v < lo || v >= hi {
		return 0, true, clusterErrorf(source, name, "%d is out of range [%d, %d)", v, lo, hi)
	}
	return v, true, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
