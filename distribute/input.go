package distribute

import (
	"errors"
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/ops"
)

// InputContext tells an input function how it is being distributed, as
// tf.distribute.InputContext: how many input pipelines there are (one per
// worker), which one this is, and how many replicas train in sync over
// all workers. Its zero value is TensorFlow's default context: one
// pipeline (id 0) feeding one replica; a zero NumInputPipelines or
// NumReplicasInSync means 1.
type InputContext struct {
	NumInputPipelines int
	InputPipelineID   int
	NumReplicasInSync int
}

// GetPerReplicaBatchSize returns globalBatchSize / NumReplicasInSync, or an
// error, as TensorFlow raises, when it does not divide evenly.
func (c InputContext) GetPerReplicaBatchSize(globalBatchSize int) (int, error) {
	n := c.NumReplicasInSync
	if n == 0 {
		n = 1
	}
	if n < 0 {
		return 0, fmt.Errorf("distribute: InputContext: NumReplicasInSync %d is negative", n)
	}
	if globalBatchSize < 0 {
		return 0, fmt.Errorf("distribute: InputContext: the global batch size %d is negative", globalBatchSize)
	}
	if globalBatchSize%n != 0 {
		return 0, fmt.Errorf("distribute: the global batch size %d is not divisible by the %d replicas in sync", globalBatchSize, n)
	}
	return globalBatchSize / n, nil
}

// AutoShardPolicy says how a dataset distributed over several workers is
// split between them, as tf.data.experimental.AutoShardPolicy (same
// values). Its zero value is [AutoShardAuto].
type AutoShardPolicy int

// The policies. gokeras datasets are not read from files, so AUTO and
// FILE shard by data; FILE says so on the log once.
const (
	// AutoShardAuto shards by data (TF: by file, else by data).
	AutoShardAuto AutoShardPolicy = 0
	// AutoShardFile would give each worker its own input files; with no
	// file-based datasets it falls back to AutoShardData, with a note.
	AutoShardFile AutoShardPolicy = 1
	// AutoShardData gives each worker its rows of every global batch:
	// the batch is split over all replicas of all workers (balanced,
	// larger parts first, in rank order) and a worker keeps the parts of
	// its replicas, so the union over workers is exactly the global batch.
	AutoShardData AutoShardPolicy = 2
	// AutoShardOff does not shard: each worker splits every element over
	// its own replicas, so each worker sees the whole dataset and a step
	// trains on numWorkers copies of each batch.
	AutoShardOff AutoShardPolicy = -1
)

func (p AutoShardPolicy) String() string {
	switch p {
	case AutoShardAuto:
		return "AUTO"
	case AutoShardFile:
		return "FILE"
	case AutoShardData:
		return "DATA"
	case AutoShardOff:
		return "OFF"
	}
	return fmt.Sprintf("AutoShardPolicy(%d)", int(p))
}

// InputOptions are the options of a distributed dataset
// ([DistributedDataset.WithOptions]). TF keeps
// the auto-shard policy in the dataset's options
// (options.experimental_distribute.auto_shard_policy); gokeras datasets
// have none, so it is here. The zero value works: AUTO.
type InputOptions struct {
	AutoShardPolicy AutoShardPolicy
}

// ShardRange returns worker's rows [lo, hi) of a global batch of
// globalBatch rows shared by numWorkers workers of localReplicas replicas
// each: the batch is split over all numWorkers*localReplicas replicas
// into parts whose sizes differ by at most one, larger first (as a
// MirroredStrategy splits over its replicas), and worker w takes the
// parts of replicas w*localReplicas to (w+1)*localReplicas-1. Splitting
// [lo, hi) over the worker's replicas in the same way gives each replica
// the very part it has in the split over all replicas. A worker can get
// no rows (lo == hi) when the batch has fewer rows than replicas.
func ShardRange(globalBatch, numWorkers, localReplicas, worker int) (lo, hi int) {
	n := numWorkers * localReplicas
	if globalBatch <= 0 || n <= 0 || worker < 0 || worker >= numWorkers {
		return 0, 0
	}
	q, rem := globalBatch/n, globalBatch%n
	first := worker * localReplicas // first replica of this worker
	// Replicas before r have r*q rows plus one for each of min(r, rem).
	at := func(r int) int { return r*q + min(r, rem) }
	return at(first), at(first + localReplicas)
}

// ShardBatch returns worker's rows of batch (views, not copies) as
// [ShardRange] gives them. Every component needs the same batch size
// first; a batch that leaves any worker without rows is an error, on
// every worker alike, that says how large a global batch must be.
func ShardBatch(batch []ops.Value, numWorkers, localReplicas, worker int) ([]ops.Value, error) {
	return shardBatch(batch, numWorkers, localReplicas, worker, false)
}

// shardBatch is ShardBatch; with allowEmpty, a worker without rows gets
// nil instead of an error (evaluation and prediction, where it skips the
// step).
func shardBatch(batch []ops.Value, numWorkers, localReplicas, worker int, allowEmpty bool) ([]ops.Value, error) {
	if numWorkers < 1 || localReplicas < 1 || worker < 0 || worker >= numWorkers {
		return nil, fmt.Errorf("distribute: ShardBatch: worker %d of %d with %d local replicas", worker, numWorkers, localReplicas)
	}
	if len(batch) == 0 || len(batch[0].Shape) == 0 {
		return nil, errors.New("distribute: ShardBatch: a batch needs a batch dimension (batch the dataset by the global batch size)")
	}
	b := batch[0].Shape[0]
	for i, v := range batch {
		if len(v.Shape) == 0 || v.Shape[0] != b {
			return nil, fmt.Errorf("distribute: ShardBatch: component %d has shape %v; every component needs the batch size %d first", i, v.Shape, b)
		}
		if len(v.Data) != v.Shape.Size() {
			return nil, fmt.Errorf("distribute: ShardBatch: component %d has shape %v but %d values", i, v.Shape, len(v.Data))
		}
	}
	if numWorkers == 1 {
		return batch, nil
	}
	// Every worker sees the same global batch, so every worker can tell
	// whether the last one gets no rows: all fail alike, instead of the
	// others waiting for it in their next collective.
	if need := (numWorkers-1)*localReplicas + 1; b < need && !allowEmpty {
		return nil, fmt.Errorf("distribute: a global batch of %d examples leaves worker %d of %d (%d replicas each) without data: use a global batch of at least %d, or drop the last partial batch (Batch(n, true))",
			b, numWorkers-1, numWorkers, localReplicas, need)
	}
	lo, hi := ShardRange(b, numWorkers, localReplicas, worker)
	if lo == hi {
		return nil, nil
	}
	out := make([]ops.Value, len(batch))
	for i, v := range batch {
		row := v.Shape[1:].Size()
		out[i] = ops.Value{Shape: append(ops.Shape{hi - lo}, v.Shape[1:]...), Data: v.Data[lo*row : hi*row]}
	}
	return out, nil
}

// inputWorkers is how a DistributedDataset is shared between workers.
type inputWorkers struct {
	workers, worker int // 0 workers means 1
	policy          AutoShardPolicy
}

// distributeDataset distributes ds, whose elements are global batches, to
// the local replicas of worker (of workers): ExperimentalDistributeDataset
// of a MirroredStrategy (one worker) or of a MultiWorkerMirroredStrategy
// (local is its replicas, worker its rank).
func distributeDataset(local *MirroredStrategy, ds *datasets.Dataset, workers, worker int) *DistributedDataset {
	d := &DistributedDataset{s: local, ds: ds, in: inputWorkers{workers: workers, worker: worker}}
	if workers < 1 || worker < 0 || worker >= workers {
		d.err = fmt.Errorf("distribute: ExperimentalDistributeDataset: worker %d of %d", worker, workers)
	}
	return d
}

// WithOptions returns a copy of d distributed with opts, as
// experimental_distribute_dataset(dataset, options): the auto-shard policy
// says how the workers share each global batch. Without it (or with
// InputOptions{}) the policy is AUTO. An unknown policy is the error of
// the first Next.
func (d *DistributedDataset) WithOptions(opts InputOptions) *DistributedDataset {
	c := *d
	c.in.policy = opts.AutoShardPolicy
	switch c.in.policy {
	case AutoShardAuto, AutoShardData, AutoShardOff:
	case AutoShardFile:
		if c.in.workers > 1 && !c.fromFunc {
			logging.Warnf("distribute: AutoShardPolicy FILE: gokeras datasets are not read from files; sharding by data (DATA) instead")
		}
	default:
		if c.err == nil {
			c.err = fmt.Errorf("distribute: DistributedDataset.WithOptions: unknown %v (AUTO, FILE, DATA or OFF)", c.in.policy)
		}
	}
	return &c
}

// splitGlobal cuts a global batch into this worker's per-replica parts:
// its shard (unless the policy is OFF), split over its replicas.
func (d *DistributedDataset) splitGlobal(vals []ops.Value) (*DistributedValues, error) {
	n := d.s.NumReplicasInSync()
	w := max(d.in.workers, 1)
	if w == 1 || d.in.policy == AutoShardOff {
		dv, err := split(vals, n)
		if err == nil && w > 1 {
			dv.global *= w // every worker trains on its copy
		}
		return dv, err
	}
	shard, err := ShardBatch(vals, w, n, d.in.worker)
	if err != nil {
		return nil, err
	}
	dv, err := split(shard, n)
	if err != nil {
		return nil, err
	}
	dv.global = vals[0].Shape[0]
	return dv, nil
}

// DistributeDatasetsFromFunction calls fn to make this worker's dataset
// of per-replica batches, as strategy.distribute_datasets_from_function:
// fn gets an [InputContext] with one input pipeline per worker (one on a
// single machine), this worker's pipeline id and the replicas in sync
// over all workers. fn shards and batches the data itself, usually to
// ctx.GetPerReplicaBatchSize(global) examples; consecutive elements go to
// the worker's replicas 0, 1, ... in turn. Nothing is sharded
// automatically. Every worker's dataset must give as many steps, or the
// workers' collectives do not meet. GlobalBatchSize of the distributed
// batches counts this worker's examples; pass the global batch size to
// [ComputeAverageLoss] yourself.
func (s *MirroredStrategy) DistributeDatasetsFromFunction(fn func(InputContext) (*datasets.Dataset, error)) (*DistributedDataset, error) {
	return distributeDatasetsFromFunction(s, fn, 1, 0)
}

// distributeDatasetsFromFunction is DistributeDatasetsFromFunction for
// worker (the input pipeline id) of workers, whose replicas are local.
func distributeDatasetsFromFunction(local *MirroredStrategy, fn func(InputContext) (*datasets.Dataset, error), workers, worker int) (*DistributedDataset, error) {
	if fn == nil {
		return nil, errors.New("distribute: DistributeDatasetsFromFunction: nil function")
	}
	if workers < 1 || worker < 0 || worker >= workers {
		return nil, fmt.Errorf("distribute: DistributeDatasetsFromFunction: worker %d of %d", worker, workers)
	}
	ctx := InputContext{NumInputPipelines: workers, InputPipelineID: worker, NumReplicasInSync: workers * local.NumReplicasInSync()}
	ds, err := fn(ctx)
	if err != nil {
		return nil, fmt.Errorf("distribute: DistributeDatasetsFromFunction: input pipeline %d of %d: %w", worker, workers, err)
	}
	if ds == nil {
		return nil, errors.New("distribute: DistributeDatasetsFromFunction: the function returned no dataset")
	}
	return &DistributedDataset{s: local, ds: ds, fromFunc: true, in: inputWorkers{workers: workers, worker: worker}}, nil
}
