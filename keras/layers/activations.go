package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// activationFn resolves a Keras activation name.
func activationFn(name string) (func(ops.Tensor) ops.Tensor, error) {
	switch name {
	case "", "linear":
		return nil, nil
	case "relu":
		return ops.Relu, nil
	case "sigmoid":
		return ops.Sigmoid, nil
	case "tanh":
		return ops.Tanh, nil
	case "softmax":
		return ops.Softmax, nil
	case "softplus":
		return ops.Log1pExp, nil
	}
	return nil, fmt.Errorf("unknown activation %q (have relu, sigmoid, tanh, softmax, softplus, linear)", name)
}

func activate(fn func(ops.Tensor) ops.Tensor, x ops.Tensor) ops.Tensor {
	if fn == nil {
		return x
	}
	return fn(x)
}
