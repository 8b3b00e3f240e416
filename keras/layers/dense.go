package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Dense is keras.layers.Dense: activation(x · kernel + bias) on the last axis.
type Dense struct {
	Base
	units  int
	act    func(ops.Tensor) ops.Tensor
	Kernel *ops.Variable
	Bias   *ops.Variable
}

// NewDense makes a Dense layer with the given number of units. Options:
// WithActivation, WithUseBias, WithKernelInitializer, WithBiasInitializer,
// WithKernelRegularizer, WithBiasRegularizer, WithInputShape, WithName.
func NewDense(units int, opts ...Option) *Dense {
	l := &Dense{units: units}
	l.init("Dense", []string{"activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer"}, opts)
	if units <= 0 && l.err == nil {
		l.err = fmt.Errorf("layers: Dense %q: units must be positive, got %d", l.name, units)
	}
	var err error
	if l.act, err = activationFn(l.cfg.activation); err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: Dense %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *Dense) Build(in []ops.Shape) error {
	s := in[0]
	if len(s) < 2 || s[len(s)-1] <= 0 {
		return fmt.Errorf("needs an input of rank >= 2 with a known last dimension, got %v", s)
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	l.Kernel = l.AddWeight("kernel", ops.Shape{s[len(s)-1], l.units}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.units}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Dense) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	tr := x.Trace()
	s := x.Shape()
	k := l.Kernel.Shape()[0]
	if len(s) < 2 || s[len(s)-1] != k {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (Dense)", l.name), Msg: fmt.Sprintf("input shape %v does not match the kernel %v", s, l.Kernel.Shape())})
	}
	x2 := x
	if len(s) > 2 {
		x2 = ops.Reshape(x, ops.Shape{-1, k})
	}
	y := ops.MatMul(x2, tr.Read(l.Kernel), false, false)
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	if len(s) > 2 {
		y = ops.Reshape(y, append(s[:len(s)-1].Clone(), l.units))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *Dense) GetConfig() map[string]any {
	m := l.baseConfig()
	m["units"] = l.units
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	return m
}

func actName(a string) string {
	if a == "" {
		return "linear"
	}
	return canonicalActivation(a)
}

// initName returns Keras' serialisation of an initializer (def when nil):
// its class name and its arguments.
func initName(i Initializer, def string) map[string]any {
	name, cfg := def, map[string]any{}
	if i != nil {
		name = i.Name()
		if c, ok := i.(interface{ Config() map[string]any }); ok {
			cfg = c.Config()
		}
	}
	return map[string]any{"class_name": name, "config": cfg}
}
