package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// DepthwiseConv1D is keras.layers.DepthwiseConv1D: each channel of a
// (batch, steps, channels) input is convolved with its own
// depth_multiplier filters, kernel shape (kernel_size, in,
// depth_multiplier), output channel c*depth_multiplier+m; then bias and
// activation. It runs as an [ops.DepthwiseConv2D] over a 1 x steps image.
type DepthwiseConv1D struct {
	Base
	kernel, stride, dil, mult int
	act                       func(ops.Tensor) ops.Tensor
	DepthwiseKernel           *ops.Variable
	Bias                      *ops.Variable
}

// NewDepthwiseConv1D makes a DepthwiseConv1D layer with a kernel of
// kernelSize steps. Options: WithDepthMultiplier (default 1), WithStrides,
// WithPadding ("valid", "same"), WithDilationRate, WithActivation,
// WithUseBias, WithDepthwiseInitializer, WithBiasInitializer,
// WithDepthwiseRegularizer, WithBiasRegularizer, WithDepthwiseConstraint,
// WithBiasConstraint, WithInputShape, WithName.
func NewDepthwiseConv1D(kernelSize int, opts ...Option) *DepthwiseConv1D {
	l := &DepthwiseConv1D{mult: 1}
	l.init("DepthwiseConv1D", []string{"kernel_size", "strides", "padding", "dilation_rate", "depth_multiplier", "activation",
		"use_bias", "depthwise_initializer", "bias_initializer", "depthwise_regularizer", "bias_regularizer",
		"depthwise_constraint", "bias_constraint"}, opts)
	var err error
	l.kernel, l.stride, l.dil, err = window1D(l.cfg, kernelSize)
	if err == nil {
		l.act, err = activationFn(l.cfg.activation)
	}
	if l.cfg.set["depth_multiplier"] {
		l.mult = l.cfg.more.depthMultiplier
	}
	if err == nil && l.mult <= 0 {
		err = fmt.Errorf("depth_multiplier must be positive, got %d", l.mult)
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: DepthwiseConv1D %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *DepthwiseConv1D) Build(in []ops.Shape) error {
	c, err := rank3Channels(in)
	if err != nil {
		return err
	}
	ki, bi := l.cfg.more.depthwiseInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	// Keras 3 names it "kernel" (Keras 2 and SeparableConv: "depthwise_kernel").
	l.DepthwiseKernel = l.addWeightAs("kernel", "depthwise_kernel", ops.Shape{l.kernel, c, l.mult}, ki, true, l.cfg.more.depthwiseReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{c * l.mult}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *DepthwiseConv1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 3)
	tr := x.Trace()
	y := depthwise1D(x, tr.Read(l.DepthwiseKernel), l.stride, l.dil, l.cfg.padding)
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// depthwise1D is a depthwise convolution of (batch, steps, c) x by the
// (k, c, m) kernel w, as a 2-D one over a 1 x steps image.
func depthwise1D(x, w ops.Tensor, stride, dil int, padding string) ops.Tensor {
	s, ws := x.Shape(), w.Shape()
	x4 := ops.Reshape(x, ops.Shape{s[0], 1, s[1], s[2]})
	w4 := ops.Reshape(w, ops.Shape{1, ws[0], ws[1], ws[2]})
	y := ops.DepthwiseConv2D(x4, w4, ops.Conv2DAttrs{Strides: [2]int{1, stride}, Dilations: [2]int{1, dil}, Padding: padding})
	ys := y.Shape()
	return ops.Reshape(y, ops.Shape{ys[0], ys[2], ys[3]})
}

// GetConfig implements Layer.
func (l *DepthwiseConv1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["kernel_size"] = []any{l.kernel}
	m["strides"] = []any{l.stride}
	m["padding"] = l.cfg.padding
	m["depth_multiplier"] = l.mult
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.dil}
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["depthwise_initializer"] = initName(l.cfg.more.depthwiseInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["depthwise_regularizer"] = regConfig(l.cfg.more.depthwiseReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	m["depthwise_constraint"] = constraintConfig(l.cfg.ml.constraints["depthwise_kernel"])
	m["bias_constraint"] = constraintConfig(l.cfg.ml.constraints["bias"])
	return m
}
