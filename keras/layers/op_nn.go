package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// The activations of keras.src.ops.nn as operations: a model that calls
// keras.ops.relu, ops.hard_sigmoid or ops.softmax on symbolic tensors
// saves them as nodes of these classes.

const nnModule = "keras.src.ops.nn"

// onLastAxis applies f, which works on the last axis, to axis a of x by
// moving a last and back.
func onLastAxis(x ops.Tensor, a int, f func(ops.Tensor) ops.Tensor) ops.Tensor {
	r := x.Rank()
	if a == r-1 {
		return f(x)
	}
	perm := make([]int, r)
	for i := range perm {
		perm[i] = i
	}
	perm[a], perm[r-1] = r-1, a
	return ops.Transpose(f(ops.Transpose(x, perm)), perm)
}

func defineSoftmax(class string, f func(ops.Tensor) ops.Tensor) {
	defineOp(&opSpec{class: class, module: nnModule, params: []string{"x"}, required: 1,
		config: map[string]any{"axis": -1.0},
		make: func(c *opConfig) (opRun, error) {
			axis := c.axis("axis")
			return func(args []any) ops.Tensor {
				x := oneTensor(class, args)
				return onLastAxis(x, normAxis(class, axis, x.Rank()), f)
			}, nil
		}})
}

func init() {
	defineUnary("Relu", nnModule, ops.Relu)
	defineUnary("Relu6", nnModule, func(x ops.Tensor) ops.Tensor { return ops.Clip(x, 0, 6) })
	defineUnary("Sigmoid", nnModule, ops.Sigmoid)
	defineUnary("HardSigmoid", nnModule, ops.HardSigmoid)
	defineUnary("HardSilu", nnModule, func(x ops.Tensor) ops.Tensor { return ops.Mul(x, ops.HardSigmoid(x)) })
	defineUnary("Silu", nnModule, ops.Silu)
	defineUnary("Selu", nnModule, ops.Selu)
	defineUnary("Softplus", nnModule, ops.Log1pExp)
	defineUnary("Softsign", nnModule, ops.Softsign)
	defineUnary("LogSigmoid", nnModule, func(x ops.Tensor) ops.Tensor { return ops.Neg(ops.Log1pExp(ops.Neg(x))) })
	defineOp(&opSpec{class: "Gelu", module: nnModule, params: []string{"x"}, required: 1,
		config: map[string]any{"approximate": true},
		make: func(c *opConfig) (opRun, error) {
			approx := c.bool("approximate")
			return func(args []any) ops.Tensor { return ops.Gelu(oneTensor("Gelu", args), approx) }, nil
		}})
	defineOp(&opSpec{class: "Elu", module: nnModule, params: []string{"x"}, required: 1,
		config: map[string]any{"alpha": 1.0},
		make: func(c *opConfig) (opRun, error) {
			alpha := c.float("alpha")
			return func(args []any) ops.Tensor { return ops.Elu(oneTensor("Elu", args), alpha) }, nil
		}})
	defineOp(&opSpec{class: "LeakyRelu", module: nnModule, params: []string{"x"}, required: 1,
		config: map[string]any{"negative_slope": 0.2},
		make: func(c *opConfig) (opRun, error) {
			slope := c.float("negative_slope")
			return func(args []any) ops.Tensor { return ops.LeakyRelu(oneTensor("LeakyRelu", args), slope) }, nil
		}})
	defineSoftmax("Softmax", ops.Softmax)
	defineSoftmax("LogSoftmax", ops.LogSoftmax)
}
