package distribute

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

// PerReplica holds one value per replica, as tf.distribute's PerReplica:
// what [MirroredStrategy.Run] returns for each output of the step. A
// replica that got no data has a zero Value.
type PerReplica []ops.Value

// ReduceOp says how Reduce combines values: [Sum] or [Mean].
type ReduceOp int

// The reductions of tf.distribute.ReduceOp.
const (
	Sum ReduceOp = iota
	Mean
)

// AxisNone reduces across replicas only (Reduce's axis=None).
const AxisNone = -1

// Run runs fn on every replica with that replica's part of batch, like
// strategy.run(fn, args=(batch,)), and returns each output of fn per
// replica. fn is a *keras.Function or a plain Go function of the replica's
// inputs (see [StepFunction]), traced once per replica and input shape. In
// fn, a loss with the default reduction (sum_over_batch_size) is, as in
// Keras 3, the local batch's mean divided by the number of replicas, so
// that summed over replicas (as their gradients are) it is the global
// batch's mean on any replica count; [ComputeAverageLoss] divides the
// local sum by the global batch size instead, which differs only when
// replicas get unequal batches (the last, partial batch).
func (s *MirroredStrategy) Run(fn any, batch *DistributedValues) ([]PerReplica, error) {
	f, err := StepFunction(fn)
	if err != nil {
		return nil, fmt.Errorf("distribute: Run: %w", err)
	}
	if batch == nil {
		return nil, errors.New("distribute: Run: nil batch")
	}
	if len(batch.parts) != s.NumReplicasInSync() {
		return nil, fmt.Errorf("distribute: Run: the batch is split for %d replicas but the strategy has %d (distribute the dataset with this strategy)", len(batch.parts), s.NumReplicasInSync())
	}
	arity := -1
	for r, p := range batch.parts {
		if p == nil {
			continue
		}
		if arity >= 0 && len(p) != arity {
			return nil, fmt.Errorf("distribute: Run: replica %d got %d inputs, another replica %d: mismatched structures", r, len(p), arity)
		}
		arity = len(p)
	}
	outs, err := f.CallReplicas(s, batch.parts)
	if err != nil {
		return nil, ops.Where("distribute: Run", err)
	}
	return perReplicaOutputs(outs), nil
}

// StepFunction returns the traced function strategies run for fn: fn
// itself if it is a *keras.Function, or a keras.Function tracing a plain
// Go function of one of these types (the replica's inputs in, the tensors
// to fetch out):
//
//	func(inputs []ops.Tensor) ([]ops.Tensor, error)
//	func(inputs []ops.Tensor) (ops.Tensor, error) // one output, such as the loss
//	func(inputs []ops.Tensor) error                // no output
//
// A plain function is traced once per function value (a closure made once
// and passed at every step, as a Python train_step is): the traced form is
// kept for the last few function values given. A closure made anew at
// every step is traced at every step.
func StepFunction(fn any) (*keras.Function, error) {
	var step func([]ops.Tensor) ([]ops.Tensor, error)
	switch f := fn.(type) {
	case *keras.Function:
		if f == nil {
			return nil, errors.New("nil *keras.Function")
		}
		return f, nil
	case func([]ops.Tensor) ([]ops.Tensor, error):
		step = f
	case func([]ops.Tensor) (ops.Tensor, error):
		if f != nil {
			step = func(in []ops.Tensor) ([]ops.Tensor, error) {
				t, err := f(in)
				if err != nil || t.IsNone() {
					return nil, err
				}
				return []ops.Tensor{t}, nil
			}
		}
	case func([]ops.Tensor) error:
		if f != nil {
			step = func(in []ops.Tensor) ([]ops.Tensor, error) { return nil, f(in) }
		}
	case nil:
	default:
		return nil, fmt.Errorf("step of type %T: want a *keras.Function or a func([]ops.Tensor) returning ([]ops.Tensor, error), (ops.Tensor, error) or error", fn)
	}
	if step == nil || reflect.ValueOf(fn).IsNil() {
		return nil, errors.New("nil step function")
	}
	return tracedSteps.get(fn, step), nil
}

// stepCache keeps the traced form of the last plain step functions, keyed
// by the function value's closure (an interface holding a func stores the
// pointer to its closure: distinct closures differ, one closure passed
// again is the same). Entries hold fn, so a key is never reused while kept.
type stepCache struct {
	mu      sync.Mutex
	entries []stepEntry // most recent last
}

type stepEntry struct {
	key unsafe.Pointer
	fn  any
	f   *keras.Function
}

const stepCacheSize = 8

var tracedSteps stepCache

func (c *stepCache) get(fn any, step func([]ops.Tensor) ([]ops.Tensor, error)) *keras.Function {
	key := (*[2]unsafe.Pointer)(unsafe.Pointer(&fn))[1]
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			return e.f
		}
	}
	e := stepEntry{key: key, fn: fn, f: keras.NewFunction(step)}
	if len(c.entries) == stepCacheSize {
		c.entries = append(c.entries[:0:0], c.entries[1:]...)
	}
	c.entries = append(c.entries, e)
	return e.f
}

// Reduce combines a per-replica value, as strategy.reduce: with
// [AxisNone] elementwise across replicas (every replica's value must have
// the same shape); with axis 0 over the examples of every replica (Mean
// divides by the total number of examples, not of replicas). Replicas
// without data are skipped.
func (s *MirroredStrategy) Reduce(op ReduceOp, v PerReplica, axis int) (ops.Value, error) {
	if err := checkReduceOp(op); err != nil {
		return ops.Value{}, err
	}
	var vals []ops.Value
	for _, x := range v {
		if x.Data != nil {
			vals = append(vals, x)
		}
	}
	if len(vals) == 0 {
		return ops.Value{}, errors.New("distribute: Reduce: no replica has a value")
	}
	switch axis {
	case AxisNone:
		out := ops.Value{Shape: vals[0].Shape.Clone(), Data: make([]float32, len(vals[0].Data))}
		for r, x := range vals {
			if !x.Shape.Equal(out.Shape) {
				return ops.Value{}, fmt.Errorf("distribute: Reduce(axis=None): replica values have shapes %v and %v; use axis 0 for per-example values", out.Shape, x.Shape)
			}
			for i, f := range x.Data {
				if r == 0 {
					out.Data[i] = f
				} else {
					out.Data[i] += f
				}
			}
		}
		if op == Mean {
			for i := range out.Data {
				out.Data[i] /= float32(len(vals))
			}
		}
		return out, nil
	case 0:
		g, err := gather(vals)
		if err != nil {
			return ops.Value{}, fmt.Errorf("distribute: Reduce(axis=0): %w", err)
		}
		n := g.Shape[0]
		sh := g.Shape[1:].Clone()
		row := sh.Size()
		out := ops.Value{Shape: sh, Data: make([]float32, row)}
		for i := 0; i < n; i++ {
			for j := 0; j < row; j++ {
				out.Data[j] += g.Data[i*row+j]
			}
		}
		if op == Mean && n > 0 {
			for j := range out.Data {
				out.Data[j] /= float32(n)
			}
		}
		return out, nil
	}
	return ops.Value{}, fmt.Errorf("distribute: Reduce: axis must be AxisNone or 0, got %d", axis)
}

// Gather concatenates the per-replica values along axis 0, in replica
// order, as strategy.gather(value, axis=0).
func (s *MirroredStrategy) Gather(v PerReplica) (ops.Value, error) {
	var vals []ops.Value
	for _, x := range v {
		if x.Data != nil {
			vals = append(vals, x)
		}
	}
	return gather(vals)
}

func gather(vals []ops.Value) (ops.Value, error) {
	if len(vals) == 0 {
		return ops.Value{}, errors.New("no values")
	}
	tail := vals[0].Shape
	if len(tail) == 0 {
		return ops.Value{}, errors.New("cannot concatenate scalars along axis 0")
	}
	out := ops.Value{Shape: append(ops.Shape{0}, tail[1:]...)}
	for _, x := range vals {
		if len(x.Shape) != len(tail) || !x.Shape[1:].Equal(tail[1:]) {
			return ops.Value{}, fmt.Errorf("shapes %v and %v differ beyond axis 0", tail, x.Shape)
		}
		out.Shape[0] += x.Shape[0]
		out.Data = append(out.Data, x.Data...)
	}
	return out, nil
}

// ExperimentalLocalResults returns the per-replica values in replica order.
func (s *MirroredStrategy) ExperimentalLocalResults(v PerReplica) []ops.Value {
	return append([]ops.Value(nil), v...)
}

// ComputeAverageLoss is tf.nn.compute_average_loss: the per-example losses
// summed and divided by the global batch size, so that summing the
// replicas' gradients gives the gradient of the mean over the global batch.
func ComputeAverageLoss(perExample ops.Tensor, globalBatchSize int) ops.Tensor {
	return losses.ComputeAverageLoss(perExample, globalBatchSize)
}

// ScaleRegularizationLoss is tf.nn.scale_regularization_loss: a
// regularization loss divided by the number of replicas of its step.
func ScaleRegularizationLoss(loss ops.Tensor) ops.Tensor {
	return losses.ScaleRegularizationLoss(loss, loss.Trace().NumReplicas())
}

// ReplicaContext is tf.distribute.ReplicaContext inside a traced replica
// step: which replica this is, and collectives over the replicas.
type ReplicaContext struct{ tr *ops.Trace }

// GetReplicaContext returns the replica context of the step t belongs to.
func GetReplicaContext(t ops.Tensor) ReplicaContext { return ReplicaContext{t.Trace()} }

// ReplicaID is this replica's index among all replicas in sync: under a
// MultiWorkerMirroredStrategy, worker rank*local replicas + local index.
func (c ReplicaContext) ReplicaID() int {
	off, _ := c.tr.Attr(replicaOffsetKey{}).(int)
	return off + c.tr.Replica()
}

// NumReplicasInSync is the number of replicas running the step.
func (c ReplicaContext) NumReplicasInSync() int { return c.tr.NumReplicas() }

// AllReduce sums (or averages) t over all replicas, in the graph; every
// replica gets the same value, and gradients flow through it.
func (c ReplicaContext) AllReduce(op ReduceOp, t ops.Tensor) ops.Tensor {
	y := ops.AllReduceSum(t)
	if op == Mean {
		y = ops.Scale(y, 1/float32(c.NumReplicasInSync()))
	}
	return y
}

// MergeCall runs fn after each replay of the step on every replica, with
// the replica context's collectives (rc.AllReduceSum) and the values of
// inputs: the place for cross-replica work such as custom variable
// updates, which tf.distribute's merge_call serves.
func (c ReplicaContext) MergeCall(name string, fn func(rc ops.ReplicaContext, vals []ops.Value) error, inputs ...ops.Tensor) {
	c.tr.AddHook(ops.Hook{Name: name, Inputs: inputs, Run: fn})
}

// perReplicaOutputs turns the outputs of each replica (outs[r][k], nil for
// a replica that got no data) into one PerReplica per output k.
func perReplicaOutputs(outs [][]ops.Value) []PerReplica {
	nOut := 0
	for _, o := range outs {
		if o != nil {
			nOut = len(o)
			break
		}
	}
	res := make([]PerReplica, nOut)
	for k := range res {
		res[k] = make(PerReplica, len(outs))
		for r, o := range outs {
			if o != nil {
				res[k][r] = o[k]
			}
		}
	}
	return res
}
