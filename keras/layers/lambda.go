package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Lambda is keras.layers.Lambda: a layer whose call is a Go function of
// the input tensor, built from package ops. It has no weights.
//
//	keras.layers.Lambda(lambda x: x * 2.0)
//	layers.NewLambda(func(x ops.Tensor) ops.Tensor { return ops.Scale(x, 2) })
//
// A Go function cannot be written to a file: saving a model with a Lambda
// layer fails with [ErrLambdaNotSerializable] (Keras itself saves lambdas
// as Python bytecode and loads them only with safe_mode=False). Write a
// layer of your own (see [NewBase]) and register it instead.
type Lambda struct {
	Base
	fn func(ops.Tensor) ops.Tensor
}

// ErrLambdaNotSerializable is the error of encoding a Lambda layer's
// config, which holds a Go function.
var ErrLambdaNotSerializable = fmt.Errorf("layers: a Lambda layer holds a Go function, which cannot be saved; " +
	"write a layer type of its own and register it with keras.RegisterLayer")

// NewLambda makes a Lambda layer calling fn. Options: WithName,
// WithInputShape.
func NewLambda(fn func(ops.Tensor) ops.Tensor, opts ...Option) *Lambda {
	l := &Lambda{fn: fn}
	l.init("Lambda", nil, opts)
	if fn == nil && l.err == nil {
		l.err = fmt.Errorf("layers: Lambda %q: nil function", l.name)
	}
	return l
}

// Build implements Layer.
func (l *Lambda) Build([]ops.Shape) error { l.built = true; return nil }

// Call implements Layer.
func (l *Lambda) Call(in []ops.Tensor, _ bool) ops.Tensor {
	y := l.fn(in[0])
	if y.IsNone() {
		panic(&ops.Error{Op: "Lambda " + l.name, Msg: fmt.Sprintf("the function returned a none tensor for input %v", in[0].Shape())})
	}
	return y
}

// lambdaFunction stands for the function in a Lambda's config: encoding it
// as JSON fails with ErrLambdaNotSerializable, so saving the model does.
type lambdaFunction struct{ layer string }

// MarshalJSON implements json.Marshaler by failing.
func (f lambdaFunction) MarshalJSON() ([]byte, error) {
	return nil, fmt.Errorf("layer %q: %w", f.layer, ErrLambdaNotSerializable)
}

// GetConfig implements Layer. Its "function" entry cannot be encoded.
func (l *Lambda) GetConfig() map[string]any {
	m := l.baseConfig()
	m["function"] = lambdaFunction{layer: l.name}
	m["output_shape"] = nil
	m["arguments"] = map[string]any{}
	return m
}
