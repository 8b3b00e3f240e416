package onnx

import "math"

// Keras' SELU constants (keras.activations.selu).
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// activation writes Keras activation name on x; axis is the layout's
// axis of Keras' last one (softmax and log_softmax run along it).
func (c *converter) activation(name, x string, axis int) (string, error) {
	switch name {
	case "", "linear":
		return x, nil
	case "relu":
		return c.op("Relu", []string{x}, ""), nil
	case "sigmoid":
		return c.op("Sigmoid", []string{x}, ""), nil
	case "tanh":
		return c.op("Tanh", []string{x}, ""), nil
	case "softmax":
		return c.op("Softmax", []string{x}, "", attrInt("axis", axis)), nil
	case "log_softmax":
		return c.op("LogSoftmax", []string{x}, "", attrInt("axis", axis)), nil
	case "softplus":
		return c.op("Softplus", []string{x}, ""), nil
	case "softsign":
		return c.op("Softsign", []string{x}, ""), nil
	case "exponential":
		return c.op("Exp", []string{x}, ""), nil
	case "elu":
		return c.op("Elu", []string{x}, "", attrFloat("alpha", 1)), nil
	case "selu":
		return c.op("Selu", []string{x}, "", attrFloat("alpha", seluAlpha), attrFloat("gamma", seluScale)), nil
	case "relu6":
		return c.op("Clip", []string{x, c.scalar("zero", 0), c.scalar("six", 6)}, ""), nil
	case "leaky_relu":
		// keras.activations.leaky_relu's default negative_slope.
		return c.op("LeakyRelu", []string{x}, "", attrFloat("alpha", 0.2)), nil
	case "silu", "swish":
		return c.op("Mul", []string{x, c.op("Sigmoid", []string{x}, "")}, ""), nil
	case "hard_sigmoid":
		// Keras 3: relu6(x + 3) / 6, that is clip(x/6 + 1/2, 0, 1).
		return c.op("HardSigmoid", []string{x}, "", attrFloat("alpha", 1.0/6), attrFloat("beta", 0.5)), nil
	case "hard_silu", "hard_swish":
		return c.op("HardSwish", []string{x}, ""), nil
	case "gelu":
		// keras.activations.gelu's default, approximate=False:
		// x/2 (1 + erf(x/sqrt 2)). ONNX's Gelu op is opset 20.
		e := c.op("Erf", []string{c.op("Mul", []string{x, c.scalar("rsqrt2", 1/math.Sqrt2)}, "")}, "")
		h := c.op("Add", []string{e, c.scalar("one", 1)}, "")
		return c.op("Mul", []string{c.op("Mul", []string{x, h}, ""), c.scalar("half", 0.5)}, ""), nil
	case "mish":
		t := c.op("Tanh", []string{c.op("Softplus", []string{x}, "")}, "")
		return c.op("Mul", []string{x, t}, ""), nil
	}
	return "", unsupported("activation %q", name)
}
