package keras

import (
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

// Keys of trace attributes set by the distributed step.
type (
	lossScaleKey   struct{}
	numReplicasKey struct{}
)

// workerStrategy is implemented by strategies whose replicas span several
// processes (distribute.MultiWorkerMirroredStrategy): NumReplicasInSync
// counts this process's replicas and GlobalReplicas all of them; each
// process trains on its rows of every global batch (ShardBatch), and a
// step's variables are made identical on every process before their
// first use (SyncVariables).
//
// Evaluation and prediction shard too, but there a process may get no
// rows of a small last batch (ShardBatch returns nil): it skips the step.
// The logged loss and metrics are those of all processes (SumStates of
// the metrics' states), and Predict gathers every process's rows
// (GatherRows). ReplicaAttrs are set on the traces of local replica r
// (the global replica id of ReplicaContext).
type workerStrategy interface {
	GlobalReplicas() int
	ShardBatch(batch []ops.Value, training bool) ([]ops.Value, error)
	SyncVariables(vars []*ops.Variable) error
	ReplicaAttrs(r int) map[any]any
	SumStates(vals []float64) ([]float64, error)
	GatherRows(local []ops.Value) ([]ops.Value, error)
}

// replicaFunctions is one traced step per replica: each replica owns its
// graph, program and buffers (gorgonia graphs are not thread-safe).
type replicaFunctions []*engine.Function

// newReplicaFunctions makes the n replicas' step functions. The random
// streams of the steps (dropout masks, augmentation) start from a seed
// drawn from the global random state, so layers.SetRandomSeed
// governs them as keras.utils.set_random_seed does; each replica's stream
// differs, as each replica sees different examples.
func newReplicaFunctions(n int, name string, training bool, fn engine.StepFunc) replicaFunctions {
	fs := make(replicaFunctions, n)
	base := layers.DrawSeed()
	for r := range fs {
		fs[r] = &engine.Function{Name: name, Training: training, Replica: r, Replicas: n, Seed: base + uint64(r), Fn: fn}
	}
	return fs
}

// splitBatch cuts a global batch into n per-replica batches along dim 0,
// balanced as tf.distribute does (sizes differ by at most one, the larger
// first). Replicas past the end get nil. The parts are views, not copies.
func splitBatch(batch []ops.Value, n int) ([][]ops.Value, error) {
	if len(batch) == 0 || len(batch[0].Shape) == 0 {
		return nil, fmt.Errorf("cannot split a batch without a batch dimension")
	}
	b := batch[0].Shape[0]
	for i, v := range batch {
		if len(v.Shape) == 0 || v.Shape[0] != b {
			return nil, fmt.Errorf("batch component %d has shape %v; every component needs the batch size %d first", i, v.Shape, b)
		}
	}
	parts := make([][]ops.Value, n)
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
			sh := append(ops.Shape{size}, v.Shape[1:]...)
			part[i] = ops.Value{Shape: sh, Data: v.Data[lo*row : (lo+size)*row]}
		}
		parts[r] = part
		lo += size
	}
	return parts, nil
}

// runReplicated runs one global batch: split across replicas, each
// replica's program traced (sequentially: tracing touches shared model
// state), then all replicas run concurrently under the strategy. With
// scale, every replica also gets the scalar 1/global_batch as its last
// input so losses average over the global batch. It returns each
// replica's outputs (nil for replicas that got no data).
func (m *Model) runReplicated(fns replicaFunctions, batch []ops.Value, scale bool) (outs [][]ops.Value, err error) {
	defer guard(fns[0].Name, &err)
	if err := m.ensureBuilt(batch); err != nil {
		return nil, err
	}
	n := len(fns)
	inv := ops.Value{Shape: ops.Shape{}, Data: []float32{1 / float32(batch[0].Shape[0])}}
	if ws, ok := m.strategy.(workerStrategy); ok {
		// This process's rows of the global batch; in training the loss
		// still averages over the global batch.
		if !scale {
			// A process without rows skips the step (and its variable
			// sync): sync the model's variables on every process first.
			if err := ws.SyncVariables(m.Weights()); err != nil {
				return nil, err
			}
		}
		global := batch
		if batch, err = ws.ShardBatch(batch, scale); err != nil {
			return nil, err
		}
		if batch == nil && scale {
			// No rows for this process in a training step: it still
			// takes part in the step's collectives, with zeros (TF feeds
			// such a worker an empty batch), so the others' all-reduces
			// find it and its weights stay in step.
			return make([][]ops.Value, n), runEmptyStep(m.strategy, fns, global, inv)
		}
		if batch == nil {
			return make([][]ops.Value, n), nil
		}
	}
	parts, err := splitBatch(batch, n)
	if err != nil {
		return nil, err
	}
	if scale {
		for r := range parts {
			if parts[r] != nil {
				parts[r] = append(parts[r], inv)
			}
		}
	}
	return runReplicas(m.strategy, fns, parts)
}

// runEmptyStep runs a training step on a process that got no rows of the
// global batch: every local replica runs the empty variant (the
// collectives, with zero gradients and no loss) of the step's program,
// traced for one row of the global batch's shapes (the program's hooks
// and collectives do not depend on the batch size).
func runEmptyStep(s engine.Strategy, fns replicaFunctions, global []ops.Value, inv ops.Value) error {
	shapes := make([]ops.Shape, 0, len(global)+1)
	for _, v := range global {
		shapes = append(shapes, append(ops.Shape{1}, v.Shape[1:]...))
	}
	shapes = append(shapes, inv.Shape)
	configureWorkerFunctions(s, fns)
	prog, err := fns[0].Program(shapes)
	if err != nil {
		return err
	}
	if ws, ok := s.(workerStrategy); ok {
		if err := ws.SyncVariables(prog.Variables()); err != nil {
			return err
		}
	}
	return s.RunReplicas(func(rc ops.ReplicaContext) error { return prog.RunEmpty(rc) })
}

// configureWorkerFunctions gives the step functions of a multi-process
// strategy the replica count of every process (ReplicaContext's
// NumReplicasInSync, ScaleRegularizationLoss) and each local replica's
// attributes.
func configureWorkerFunctions(s engine.Strategy, fns replicaFunctions) {
	ws, ok := s.(workerStrategy)
	if !ok {
		return
	}
	for r, f := range fns {
		f.Replicas = ws.GlobalReplicas()
		for k, v := range ws.ReplicaAttrs(r) {
			if f.Attrs == nil {
				f.Attrs = map[any]any{}
			}
			f.Attrs[k] = v
		}
	}
}

// runReplicas runs one step on every replica of s: fns[r] on parts[r]
// (nil: that replica got no data). Programs are traced first, in replica
// order and on this goroutine (tracing touches shared model state); then
// the replicas run concurrently. It returns each replica's outputs, which
// alias the programs' buffers until their next run.
func runReplicas(s engine.Strategy, fns replicaFunctions, parts [][]ops.Value) (outs [][]ops.Value, err error) {
	n := len(fns)
	if len(parts) != n || s.NumReplicasInSync() != n {
		return nil, fmt.Errorf("inputs for %d replicas, functions for %d, strategy with %d", len(parts), n, s.NumReplicasInSync())
	}
	configureWorkerFunctions(s, fns)
	progs := make([]*engine.Program, n)
	first := -1
	for r, part := range parts {
		if part == nil {
			continue
		}
		shapes := make([]ops.Shape, len(part))
		for i, v := range part {
			shapes[i] = v.Shape
		}
		if progs[r], err = fns[r].Program(shapes); err != nil {
			return nil, err
		}
		if first < 0 {
			first = r
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("no replica got data")
	}
	if ws, ok := s.(workerStrategy); ok {
		if err := ws.SyncVariables(progs[first].Variables()); err != nil {
			return nil, err
		}
	}
	outs = make([][]ops.Value, n)
	var mu sync.Mutex
	err = s.RunReplicas(func(rc ops.ReplicaContext) error {
		r := rc.ReplicaID()
		if parts[r] == nil {
			// No data for this replica: run the collectives and the hooks'
			// empty variants (an optimizer all-reduces zeros) of a
			// replica that has data.
			return progs[first].RunEmpty(rc)
		}
		o, err := progs[r].Run(rc, parts[r])
		mu.Lock()
		outs[r] = o
		mu.Unlock()
		return err
	})
	return outs, err
}

// workerLogs is m.logs("") over every process of a multi-process
// strategy, as tf.distribute reads metrics: each metric's state (a
// [metrics.Reducible]'s sums) summed over the processes before its
// result, so every process logs the loss and metrics of the whole global
// batch. A metric that is not Reducible logs the mean of the processes'
// results.
func (m *Model) workerLogs() (Logs, error) {
	ws, ok := m.strategy.(workerStrategy)
	if !ok {
		return m.logs(""), nil
	}
	ents := m.logEntries()
	var state []float64
	at := make([]int, len(ents)+1)
	for i, e := range ents {
		mt := e.mt
		if r, ok := mt.(metrics.Reducible); ok {
			state = append(state, r.State()...)
		} else {
			state = append(state, mt.Result(), 1)
		}
		at[i+1] = len(state)
	}
	sum, err := ws.SumStates(state)
	if err != nil {
		return nil, fmt.Errorf("keras: summing the metrics over the workers: %w", err)
	}
	out := make(Logs, len(ents))
	for i, e := range ents {
		mt := e.mt
		st := sum[at[i]:at[i+1]]
		v := 0.0
		if r, ok := mt.(metrics.Reducible); ok {
			v = r.ResultOf(st)
		} else if st[1] > 0 {
			v = st[0] / st[1]
		}
		out[e.name] = v
	}
	return out, nil
}

// predictRows concatenates the replicas' outputs of one predict step, in
// replica order (they hold consecutive rows), copying them; under a
// multi-process strategy it gathers every process's rows, so each
// process gets the predictions of the whole global batch.
func (m *Model) predictRows(perReplica [][]ops.Value) ([]ops.Value, error) {
	var local []ops.Value
	for _, outs := range perReplica {
		if outs == nil {
			continue
		}
		if local == nil {
			local = make([]ops.Value, len(outs))
			for i, o := range outs {
				local[i].Shape = append(ops.Shape{0}, o.Shape[1:]...)
			}
		}
		for i, o := range outs {
			local[i].Data = append(local[i].Data, o.Data...)
			local[i].Shape[0] += o.Shape[0]
		}
	}
	if ws, ok := m.strategy.(workerStrategy); ok {
		return ws.GatherRows(local)
	}
	return local, nil
}
