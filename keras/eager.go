package keras

import (
	"errors"
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Eager execution: a model or a layer called on concrete data computes at
// once and returns tensors with values, as TensorFlow 2 runs by default.
// The ops run the same kernels a traced [Function] replays, so an eager
// step and a traced one give the same numbers; the traced form is faster
// (no graph is built per call). Each eager op records the graph it is
// part of, so [GradientTape.Gradient] differentiates a loss through the
// calls it came from.
//
//	tape := keras.NewGradientTape()
//	logits, err := model.CallEager(x, true)
//	loss := lossFn.Call(ops.ConvertToTensor(y), logits)
//	grads, err := tape.Gradient(loss, model.TrainableVariables())
//	err = optimizer.ApplyGradients(grads, model.TrainableVariables())
//	fmt.Println(loss.Float32())

// CallEager calls the model on concrete data, as model(x, training=...)
// in TensorFlow's eager mode, and returns the output with its value
// (Float32s, Float32, Numpy). x is a *tensor.Dense, an ops.Value or an
// eager ops.Tensor. A Sequential model not built yet is built for x's
// shape. A GradientTape's Gradient differentiates through the call.
//
// Eager calls read the primary copy of the weights. A training call of a
// model made under a strategy with several replicas is an error: its
// updates would reach one copy; run such steps with strategy.Run.
func (m *Model) CallEager(x any, training bool) (out ops.Tensor, err error) {
	if err := m.usable("CallEager"); err != nil {
		return ops.Tensor{}, err
	}
	defer eagerGuard(fmt.Sprintf("model %q", m.name), &err)
	in, err := EagerTensor(x)
	if err != nil {
		return ops.Tensor{}, fmt.Errorf("keras: model %q: %w", m.name, err)
	}
	if m.inputs != nil && len(m.inputs) != 1 {
		return ops.Tensor{}, fmt.Errorf("keras: model %q has %d inputs: call m.Call with one eager tensor per input (ops.ConvertToTensor)", m.name, len(m.inputs))
	}
	if s := m.strategy; training && s != nil && s.NumReplicasInSync() > 1 {
		return ops.Tensor{}, fmt.Errorf("keras: model %q: an eager training call would update one of the %d copies of its mirrored weights: run the step with strategy.Run (or call with training false)", m.name, s.NumReplicasInSync())
	}
	outs := m.Call([]ops.Tensor{in}, training)
	if len(outs) != 1 {
		return ops.Tensor{}, fmt.Errorf("keras: model %q has %d outputs: call m.Call with eager tensors (ops.ConvertToTensor) to get them all", m.name, len(outs))
	}
	return outs[0], nil
}

// CallLayer calls layer l on inputs, building it first for their shapes
// (with an unknown batch dimension) if needed: Keras' layer(x). With
// concrete inputs (*tensor.Dense, ops.Value or eager ops.Tensor) the
// result has its value at once; with symbolic tensors of a traced
// function it is part of the trace. Misuse is returned as an error naming
// the layer and the shapes.
func CallLayer(l layers.Layer, training bool, inputs ...any) (out ops.Tensor, err error) {
	if l == nil {
		return ops.Tensor{}, errors.New("keras: CallLayer: nil layer")
	}
	defer eagerGuard(fmt.Sprintf("layer %q (%s)", l.Name(), l.ClassName()), &err)
	if len(inputs) == 0 {
		return ops.Tensor{}, fmt.Errorf("keras: layer %q: no inputs", l.Name())
	}
	ts := make([]ops.Tensor, len(inputs))
	shapes := make([]ops.Shape, len(inputs))
	for i, x := range inputs {
		t, ok := x.(ops.Tensor)
		if !ok || t.IsEager() {
			if t, err = EagerTensor(x); err != nil {
				return ops.Tensor{}, fmt.Errorf("keras: layer %q: input %d: %w", l.Name(), i, err)
			}
		}
		if t.IsNone() {
			return ops.Tensor{}, fmt.Errorf("keras: layer %q: input %d is a none tensor", l.Name(), i)
		}
		ts[i] = t
		shapes[i] = t.Shape().Clone()
		if len(shapes[i]) > 0 {
			shapes[i][0] = -1
		}
	}
	if !l.Built() {
		if _, err := layers.OutputShape(l, shapes); err != nil {
			return ops.Tensor{}, fmt.Errorf("keras: %w", err)
		}
	}
	return l.Call(ts, training), nil
}

// EagerTensor returns x as an eager tensor: a *tensor.Dense or an
// ops.Value is copied into one (ops.ConvertToTensor), an eager
// ops.Tensor is returned as it is. A symbolic tensor is an error: it has
// a value only while its traced function runs.
func EagerTensor(x any) (t ops.Tensor, err error) {
	defer eagerGuard("EagerTensor", &err)
	switch x := x.(type) {
	case *tensor.Dense:
		if x == nil {
			return ops.Tensor{}, errors.New("nil *tensor.Dense")
		}
		return ops.ConvertToTensor(x), nil
	case ops.Value:
		return ops.FromValue(x), nil
	case ops.Tensor:
		if x.IsNone() {
			return ops.Tensor{}, errors.New("none tensor")
		}
		if !x.IsEager() {
			return ops.Tensor{}, fmt.Errorf("%v is symbolic (of a traced function): call the model with model.Call inside the function instead", x)
		}
		return x, nil
	case nil:
		return ops.Tensor{}, errors.New("nil input")
	}
	return ops.Tensor{}, fmt.Errorf("input of type %T: want *tensor.Dense, ops.Value or an eager ops.Tensor", x)
}

// eagerGuard turns an *ops.Error panic into an error naming what failed.
func eagerGuard(what string, err *error) {
	if r := recover(); r != nil {
		e, ok := r.(*ops.Error)
		if !ok {
			panic(r)
		}
		*err = fmt.Errorf("keras: %s: %w", what, e)
	}
}
