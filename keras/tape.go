package keras

import (
	"errors"
	"fmt"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// GradientTape is tf.GradientTape for traced steps. Everything computed in
// a trace is recorded already (the trace is the tape), so the tape only
// asks for the gradients: symbolically, into the same graph.
//
//	tape := keras.NewGradientTape()
//	predictions := model.Forward(images, true)
//	loss := lossFn.Call(labels, predictions)
//	grads, err := tape.Gradient(loss, model.TrainableVariables())
//	err = optimizer.ApplyGradients(grads, model.TrainableVariables())
type GradientTape struct {
	used bool
}

// NewGradientTape starts a tape.
func NewGradientTape() *GradientTape { return &GradientTape{} }

// Gradient returns d target / d v for each variable; a variable target
// does not depend on gets a none tensor (tf returns None). A tape gives
// gradients once, as a non-persistent tf.GradientTape.
func (t *GradientTape) Gradient(target ops.Tensor, vars []*ops.Variable) ([]ops.Tensor, error) {
	if t.used {
		return nil, errors.New("keras: GradientTape.Gradient can only be called once on a non-persistent tape")
	}
	t.used = true
	return ops.Gradients(target, vars)
}

// Function is tf.function for custom loops: fn is traced once per input
// shape into a graph and replayed on each Call.
type Function struct {
	fn *engine.Function
}

// NewFunction wraps a step. fn receives symbolic inputs and returns the
// tensors to fetch; the hooks it registers (optimizer updates, metrics)
// run after every replay.
func NewFunction(fn func(inputs []ops.Tensor) ([]ops.Tensor, error)) *Function {
	return &Function{fn: &engine.Function{Name: "function", Training: true, Fn: func(_ *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
		return fn(in)
	}}}
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
func (f *Function) CallValues(inputs ...ops.Value) (outs []ops.Value, err error) {
	defer guard("Function", &err)
	res, err := f.fn.Call(engine.Single{}, inputs)
	if err != nil {
		return nil, err
	}
	outs = make([]ops.Value, len(res))
	for i, r := range res {
		outs[i] = ops.Value{Shape: r.Shape.Clone(), Data: append([]float32(nil), r.Data...)}
	}
	return outs, nil
}

// Traces reports how many times the function has been traced.
func (f *Function) Traces() int { return f.fn.Traces }
