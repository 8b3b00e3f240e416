package distribute

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/ops"
)

// DistributedValues is one global batch split across replicas: part r is
// replica r's slice of every component (views of the global batch), nil
// for a replica past the end of an uneven last batch.
type DistributedValues struct {
	parts  [][]ops.Value
	global int
}

// Parts returns the per-replica inputs.
func (d *DistributedValues) Parts() [][]ops.Value { return d.parts }

// GlobalBatchSize is the number of examples over all replicas.
func (d *DistributedValues) GlobalBatchSize() int { return d.global }

// split cuts a global batch into n balanced per-replica parts along dim 0
// (sizes differ by at most one, larger first, as tf.distribute rebatches).
func split(batch []ops.Value, n int) (*DistributedValues, error) {
	if len(batch) == 0 || len(batch[0].Shape) == 0 {
		return nil, errors.New("a batch needs a batch dimension")
	}
	b := batch[0].Shape[0]
	for i, v := range batch {
		if len(v.Shape) == 0 || v.Shape[0] != b {
			return nil, fmt.Errorf("component %d has shape %v; every component needs batch size %d first", i, v.Shape, b)
		}
	}
	d := &DistributedValues{parts: make([][]ops.Value, n), global: b}
	lo := 0
	for r := 0; r < n; r++ {
		size := b / n
		if r < b%n {
			size++
		}
		if size == 0 {
			continue
		}
		part := make([]ops.Value, len(batch))
		for i, v := range batch {
			row := v.Shape[1:].Size()
			part[i] = ops.Value{Shape: append(ops.Shape{size}, v.Shape[1:]...), Data: v.Data[lo*row : (lo+size)*row]}
		}
		d.parts[r] = part
		lo += size
	}
	return d, nil
}

// DistributedDataset yields global batches split across a strategy's
// replicas: strategy.experimental_distribute_dataset(dataset).
type DistributedDataset struct {
	s        *MirroredStrategy // this worker's replicas
	ds       *datasets.Dataset
	fromFunc bool         // each element is one replica's batch (DistributeDatasetsFromFunction)
	in       inputWorkers // how the workers share the input (input.go)
	err      error        // of the options, reported by the first Next
	all      *passErr     // the error of the last All pass (iter.go's Err)
}

// ExperimentalDistributeDataset distributes a dataset of global batches:
// each element is split across the replicas. On one machine there is
// nothing to shard between workers; see [DistributedDataset.WithOptions].
func (s *MirroredStrategy) ExperimentalDistributeDataset(ds *datasets.Dataset) *DistributedDataset {
	return distributeDataset(s, ds, 1, 0)
}

// DistributedIterator walks a DistributedDataset.
type DistributedIterator struct {
	d   *DistributedDataset
	it  *datasets.Iterator
	err error
}

// Iterate starts a pass; Close it when done.
func (d *DistributedDataset) Iterate(ctx context.Context) *DistributedIterator {
	return &DistributedIterator{d: d, it: d.ds.Iterate(ctx)}
}

// Next returns the next distributed batch, or false at the end or on error.
func (it *DistributedIterator) Next() (*DistributedValues, bool) {
	if it.err == nil {
		it.err = it.d.err
	}
	if it.err != nil {
		return nil, false
	}
	n := it.d.s.NumReplicasInSync()
	if !it.d.fromFunc {
		el, ok := it.it.Next()
		if !ok {
			return nil, false
		}
		vals, err := values(el)
		if err == nil {
			var dv *DistributedValues
			if dv, err = it.d.splitGlobal(vals); err == nil {
				return dv, true
			}
		}
		it.err = fmt.Errorf("distribute: dataset element: %w", err)
		return nil, false
	}
	dv := &DistributedValues{parts: make([][]ops.Value, n)}
	for r := 0; r < n; r++ {
		el, ok := it.it.Next()
		if !ok {
			if r == 0 {
				return nil, false
			}
			break // the last replicas get no data this step
		}
		vals, err := values(el)
		if err != nil {
			it.err = fmt.Errorf("distribute: dataset element: %w", err)
			return nil, false
		}
		if len(vals) == 0 || len(vals[0].Shape) == 0 {
			it.err = errors.New("distribute: dataset elements need a batch dimension")
			return nil, false
		}
		dv.parts[r] = vals
		dv.global += vals[0].Shape[0]
	}
	return dv, true
}

// Err returns the error that ended the pass, if any.
func (it *DistributedIterator) Err() error {
	if it.err != nil {
		return it.err
	}
	return it.it.Err()
}

// Close stops the pass's goroutines.
func (it *DistributedIterator) Close() { it.it.Close() }

func values(el datasets.Element) ([]ops.Value, error) {
	out := make([]ops.Value, len(el))
	for i, t := range el {
		v, err := ops.ValueOf(t)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// passErr is the error of a DistributedDataset's last All pass.
type passErr struct {
	mu  sync.Mutex
	err error
}

var passErrMu sync.Mutex // guards the creation of DistributedDataset.all

func (d *DistributedDataset) passErr() *passErr {
	passErrMu.Lock()
	defer passErrMu.Unlock()
	if d.all == nil {
		d.all = &passErr{}
	}
	return d.all
}

// All returns the distributed batches of one pass as a Go iterator, each
// range over it starting a new pass; the error that ended the last pass is
// d.Err() afterwards:
//
//	for x := range distDataset.All(ctx) {
//		losses, err := strategy.Run(trainStep, x)
//		...
//	}
//	if err := distDataset.Err(); err != nil {
//		...
//	}
//
// Breaking out of the loop ends the pass without an error. Passes run at
// the same time in several goroutines share the error: use Iterate there.
func (d *DistributedDataset) All(ctx context.Context) iter.Seq[*DistributedValues] {
	return func(yield func(*DistributedValues) bool) {
		st := d.passErr()
		it := d.Iterate(ctx)
		defer it.Close()
		st.mu.Lock()
		st.err = nil
		st.mu.Unlock()
		for x, ok := it.Next(); ok; x, ok = it.Next() {
			if !yield(x) {
				return
			}
		}
		st.mu.Lock()
		st.err = it.Err()
		st.mu.Unlock()
	}
}

// Err returns the error that ended the last pass of [DistributedDataset.All],
// or nil if it ended normally, was stopped by a break, or none ran.
func (d *DistributedDataset) Err() error {
	st := d.passErr()
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}
