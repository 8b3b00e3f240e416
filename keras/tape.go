package keras

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// GradientTape is tf.GradientTape. Eagerly (a model called with
// [Model.CallEager] on arrays), every op records the graph it belongs to
// as it runs, and Gradient differentiates the graph of its target; in a
// traced step everything computed is recorded already (the trace is the
// tape), and the gradients are built into the same graph.
//
//	tape := keras.NewGradientTape()
//	predictions := model.Forward(images, true) // or model.CallEager(x, true)
//	loss := lossFn.Call(labels, predictions)
//	grads, err := tape.Gradient(loss, model.TrainableVariables())
//	err = optimizer.ApplyGradients(grads, model.TrainableVariables())
//
// The tape holds no global state: eager loops in several goroutines each
// differentiate their own graphs. Unlike TensorFlow, ops run before the
// tape was made are differentiable too, when the target depends on them.
type GradientTape struct {
	used bool
}

// NewGradientTape starts a tape.
func NewGradientTape() *GradientTape { return &GradientTape{} }

// Gradient returns d target / d v for each variable; a variable target
// does not depend on gets a none tensor (tf returns None). A tape gives
// gradients once, as a non-persistent tf.GradientTape, and a graph is
// differentiated once. For an eager target the gradients are eager
// tensors.
func (t *GradientTape) Gradient(target ops.Tensor, vars []*ops.Variable) ([]ops.Tensor, error) {
	if t.used {
		return nil, errors.New("keras: GradientTape.Gradient can only be called once on a non-persistent tape")
	}
	t.used = true
	return ops.Gradients(target, vars)
}

// Function is tf.function for custom loops: fn is traced once per input
// shape (and per replica, when a strategy runs it) into a graph and
// replayed on each call.
type Function struct {
	fn  func(inputs []ops.Tensor) ([]ops.Tensor, error)
	mu  sync.Mutex
	fns map[int]replicaFunctions // by replica count
}

// NewFunction wraps a step. fn receives symbolic inputs and returns the
// tensors to fetch; the hooks it registers (optimizer updates, metrics)
// run after every replay.
func NewFunction(fn func(inputs []ops.Tensor) ([]ops.Tensor, error)) *Function {
	return &Function{fn: fn, fns: map[int]replicaFunctions{}}
}

func (f *Function) replicas(n int) replicaFunctions {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fns[n] == nil {
		fs := newReplicaFunctions(n, "function", true, func(_ *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
			return f.fn(in)
		})
		if n > 1 {
			for _, e := range fs {
				e.Attrs = map[any]any{ops.CustomReplicaStep{}: true}
			}
		}
		f.fns[n] = fs
	}
	return f.fns[n]
}

// Call runs the function on concrete inputs and returns copies of its outputs.
func (f *Function) Call(inputs ...*tensor.Dense) (outs []ops.Value, err error) {
	vals := make([]ops.Value, len(inputs))
	for i, in := range inputs {
		if in == nil {
			return nil, fmt.Errorf("keras: Function: input %d is nil", i)
		}
		if vals[i], err = ops.ValueOf(in); err != nil {
			return nil, fmt.Errorf("keras: Function: input %d: %w", i, err)
		}
	}
	return f.CallValues(vals...)
}

// CallValues is Call on ops.Values (read in place, not copied).
func (f *Function) CallValues(inputs ...ops.Value) ([]ops.Value, error) {
	res, err := f.CallReplicas(engine.Default(), [][]ops.Value{inputs})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// CallReplicas runs the function on every replica of s, replica r on
// parts[r] (nil: no data this step), as strategy.run does, and returns
// copies of each replica's outputs (nil for replicas without data).
func (f *Function) CallReplicas(s engine.Strategy, parts [][]ops.Value) (outs [][]ops.Value, err error) {
	fns := f.replicas(s.NumReplicasInSync())
	defer guard("Function", &err)
	res, err := runReplicas(s, fns, parts)
	if err != nil {
		return nil, ops.Where("keras: Function", err)
	}
	outs = make([][]ops.Value, len(res))
	for r, vals := range res {
		if vals == nil {
			continue
		}
		outs[r] = make([]ops.Value, len(vals))
		for i, v := range vals {
			outs[r][i] = ops.Value{Shape: v.Shape.Clone(), Data: append([]float32(nil), v.Data...)}
		}
	}
	return outs, nil
}

// Traces reports how many times the function has been traced (all replicas).
func (f *Function) Traces() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, fs := range f.fns {
		for _, e := range fs {
			n += e.Traces
		}
	}
	return n
}
