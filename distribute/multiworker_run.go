package distribute

import (
	"errors"
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/ops"
)

// Run runs fn on every local replica with its part of batch (from
// [MultiWorkerMirroredStrategy.ExperimentalDistributeDataset]), as
// strategy.run, and returns each output per local replica. Collectives in
// fn and in the optimizer reach every replica of every worker.
func (s *MultiWorkerMirroredStrategy) Run(fn any, batch *DistributedValues) ([]PerReplica, error) {
	f, err := StepFunction(fn) // a *keras.Function or a plain step function (run.go)
	if err != nil {
		return nil, fmt.Errorf("distribute: Run: %w", err)
	}
	if batch == nil {
		return nil, errors.New("distribute: Run: nil batch")
	}
	if len(batch.parts) != s.nLocal {
		return nil, fmt.Errorf("distribute: Run: the batch is split for %d replicas but this worker has %d (distribute the dataset with this strategy)", len(batch.parts), s.nLocal)
	}
	outs, err := f.CallReplicas(s.replicas, batch.parts)
	if err != nil {
		return nil, ops.Where("distribute: Run", err)
	}
	return perReplicaOutputs(outs), nil
}

// ExperimentalLocalResults returns this worker's per-replica values.
func (s *MultiWorkerMirroredStrategy) ExperimentalLocalResults(v PerReplica) []ops.Value {
	return append([]ops.Value(nil), v...)
}

// Reduce combines a per-replica value over every replica of every worker,
// as strategy.reduce: with [AxisNone] elementwise (Mean divides by the
// number of replicas with a value), with axis 0 over all examples (Mean
// divides by their number). Every worker must call it; every worker gets
// the same result.
func (s *MultiWorkerMirroredStrategy) Reduce(op ReduceOp, v PerReplica, axis int) (ops.Value, error) {
	if err := checkReduceOp(op); err != nil {
		return ops.Value{}, err
	}
	if axis != AxisNone && axis != 0 {
		return ops.Value{}, fmt.Errorf("distribute: Reduce: axis must be AxisNone or 0, got %d", axis)
	}
	var vals []ops.Value
	for _, x := range v {
		if x.Data != nil {
			vals = append(vals, x)
		}
	}
	// Local sum and count: replicas (axis None) or examples (axis 0).
	var shape ops.Shape
	var sum []float64
	count, have := 0, false
	for _, x := range vals {
		sh := x.Shape
		if axis == 0 {
			if len(sh) == 0 {
				return ops.Value{}, errors.New("distribute: Reduce(axis=0): cannot reduce scalars along axis 0")
			}
			sh = sh[1:]
		}
		if !have {
			shape, sum, have = sh.Clone(), make([]float64, sh.Size()), true
		} else if !sh.Equal(shape) {
			return ops.Value{}, fmt.Errorf("distribute: Reduce: replica values have shapes %v and %v", shape, sh)
		}
		if axis == AxisNone {
			for i, f := range x.Data {
				sum[i] += float64(f)
			}
			count++
			continue
		}
		row := len(sum)
		for j := 0; j < x.Shape[0]; j++ {
			for i := range sum {
				sum[i] += float64(x.Data[j*row+i])
			}
		}
		count += x.Shape[0]
	}
	// Agree on the shape: every worker says its size (-1: no value).
	size := int64(-1)
	if have {
		size = int64(shape.Size())
	}
	sizes, err := s.coll.allGatherInt64([]int64{size})
	if err != nil {
		return ops.Value{}, fmt.Errorf("distribute: Reduce: %w", err)
	}
	n := int64(-1)
	for r, z := range sizes {
		if z >= 0 && n >= 0 && z != n {
			return ops.Value{}, fmt.Errorf("distribute: Reduce: worker rank %d has values of %d elements, another %d", r, z, n)
		}
		if z >= 0 {
			n = z
		}
	}
	if n < 0 {
		return ops.Value{}, errors.New("distribute: Reduce: no replica has a value")
	}
	if sum == nil {
		sum = make([]float64, n)
	}
	// Local sums are float64; across workers they go as float32 with the
	// count last.
	buf := make([]float32, n+1)
	for i, f := range sum {
		buf[i] = float32(f)
	}
	buf[n] = float32(count)
	if err := s.coll.allReduceSum([][]float32{buf}); err != nil {
		return ops.Value{}, fmt.Errorf("distribute: Reduce: %w", err)
	}
	out := ops.Value{Shape: shape, Data: buf[:n]}
	if !have {
		// This worker had no value: the shape is only known by its size.
		out.Shape = ops.Shape{int(n)}
		if n == 1 {
			out.Shape = ops.Shape{}
		}
	}
	if op == Mean && buf[n] > 0 {
		for i := range out.Data {
			out.Data[i] /= buf[n]
		}
	}
	return out, nil
}

// Gather concatenates the per-replica values of every worker along axis
// 0, in global replica order, as strategy.gather(value, axis=0). Every
// worker must call it and gets the whole result.
func (s *MultiWorkerMirroredStrategy) Gather(v PerReplica) (ops.Value, error) {
	var vals []ops.Value
	for _, x := range v {
		if x.Data != nil {
			vals = append(vals, x)
		}
	}
	rows, row := int64(0), int64(-1)
	var local ops.Value
	if len(vals) > 0 {
		g, err := gather(vals)
		if err != nil {
			return ops.Value{}, fmt.Errorf("distribute: Gather: %w", err)
		}
		local, rows, row = g, int64(g.Shape[0]), int64(g.Shape[1:].Size())
	}
	meta, err := s.coll.allGatherInt64([]int64{rows, row})
	if err != nil {
		return ops.Value{}, fmt.Errorf("distribute: Gather: %w", err)
	}
	maxRows, total := int64(0), int64(0)
	for r := 0; r < len(meta)/2; r++ {
		if meta[2*r+1] >= 0 && row >= 0 && meta[2*r+1] != row {
			return ops.Value{}, fmt.Errorf("distribute: Gather: worker rank %d has rows of %d values, rank %d of %d", r, meta[2*r+1], s.coll.rank(), row)
		}
		if meta[2*r+1] >= 0 {
			row = meta[2*r+1]
		}
		maxRows = max(maxRows, meta[2*r])
		total += meta[2*r]
	}
	if row < 0 {
		return ops.Value{}, errors.New("distribute: Gather: no values")
	}
	send := make([]float32, maxRows*row)
	copy(send, local.Data)
	all, err := s.coll.allGather(send)
	if err != nil {
		return ops.Value{}, fmt.Errorf("distribute: Gather: %w", err)
	}
	out := make([]float32, 0, total*row)
	for r := 0; r < len(meta)/2; r++ {
		base := int64(r) * maxRows * row
		out = append(out, all[base:base+meta[2*r]*row]...)
	}
	shape := ops.Shape{int(total)}
	if local.Data != nil {
		shape = append(shape, local.Shape[1:]...)
	} else if row != 1 {
		shape = append(shape, int(row))
	}
	return ops.Value{Shape: shape, Data: out}, nil
}

// ExperimentalDistributeDataset distributes a dataset of global batches:
// every worker reads the same global batches and keeps its rows (sharding
// by data, AUTO; see [DistributedDataset.WithOptions]), split over its
// local replicas.
func (s *MultiWorkerMirroredStrategy) ExperimentalDistributeDataset(ds *datasets.Dataset) *DistributedDataset {
	return distributeDataset(s.local, ds, s.workers, s.coll.rank())
}

// DistributeDatasetsFromFunction calls fn with this worker's
// [InputContext] (one input pipeline per worker) to make its dataset of
// per-replica batches, as strategy.distribute_datasets_from_function.
func (s *MultiWorkerMirroredStrategy) DistributeDatasetsFromFunction(fn func(InputContext) (*datasets.Dataset, error)) (*DistributedDataset, error) {
	return distributeDatasetsFromFunction(s.local, fn, s.workers, s.coll.rank())
}
