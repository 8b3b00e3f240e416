package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// SeparableConv1D is keras.layers.SeparableConv1D: a depthwise 1-D
// convolution (each channel with its own depth_multiplier filters, kernel
// (kernel_size, in, depth_multiplier)) followed by a pointwise one (a
// (1, in*depth_multiplier, filters) kernel mixing the channels), then bias
// and activation.
type SeparableConv1D struct {
	Base
	filters, kernel, stride, dil, mult int
	act                                func(ops.Tensor) ops.Tensor
	DepthwiseKernel                    *ops.Variable
	PointwiseKernel                    *ops.Variable
	Bias                               *ops.Variable
}

// NewSeparableConv1D makes a SeparableConv1D layer with filters outputs
// and a kernel of kernelSize steps. Options: WithDepthMultiplier (default
// 1), WithStrides, WithPadding ("valid", "same"), WithDilationRate,
// WithActivation, WithUseBias, WithDepthwiseInitializer,
// WithPointwiseInitializer, WithBiasInitializer, their regularizers and
// constraints, WithInputShape, WithName.
func NewSeparableConv1D(filters, kernelSize int, opts ...Option) *SeparableConv1D {
	l := &SeparableConv1D{filters: filters, mult: 1}
	l.init("SeparableConv1D", []string{"kernel_size", "strides", "padding", "dilation_rate", "depth_multiplier", "activation",
		"use_bias", "depthwise_initializer", "pointwise_initializer", "bias_initializer", "depthwise_regularizer",
		"pointwise_regularizer", "bias_regularizer", "depthwise_constraint", "pointwise_constraint", "bias_constraint"}, opts)
	var err error
	l.kernel, l.stride, l.dil, err = window1D(l.cfg, kernelSize)
	if err == nil {
		l.act, err = activationFn(l.cfg.activation)
	}
	if l.cfg.set["depth_multiplier"] {
		l.mult = l.cfg.more.depthMultiplier
	}
	if err == nil && (l.mult <= 0 || filters <= 0) {
		err = fmt.Errorf("filters %d and depth_multiplier %d must be positive", filters, l.mult)
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: SeparableConv1D %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *SeparableConv1D) Build(in []ops.Shape) error {
	c, err := rank3Channels(in)
	if err != nil {
		return err
	}
	di, pi, bi := l.cfg.more.depthwiseInit, l.cfg.conv.pointwiseInit, l.cfg.biasInit
	if di == nil {
		di = GlorotUniform()
	}
	if pi == nil {
		pi = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	l.DepthwiseKernel = l.AddWeight("depthwise_kernel", ops.Shape{l.kernel, c, l.mult}, di, true, l.cfg.more.depthwiseReg)
	l.PointwiseKernel = l.AddWeight("pointwise_kernel", ops.Shape{1, c * l.mult, l.filters}, pi, true, l.cfg.conv.pointwiseReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *SeparableConv1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 3)
	tr := x.Trace()
	y := depthwise1D(x, tr.Read(l.DepthwiseKernel), l.stride, l.dil, l.cfg.padding)
	ys := y.Shape()
	p := ops.Reshape(tr.Read(l.PointwiseKernel), ops.Shape{ys[2], l.filters})
	y = ops.Reshape(ops.MatMul(ops.Reshape(y, ops.Shape{ys[0] * ys[1], ys[2]}), p, false, false), ops.Shape{ys[0], ys[1], l.filters})
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *SeparableConv1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = []any{l.kernel}
	m["strides"] = []any{l.stride}
	m["padding"] = l.cfg.padding
	m["depth_multiplier"] = l.mult
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.dil}
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["depthwise_initializer"] = initName(l.cfg.more.depthwiseInit, "GlorotUniform")
	m["pointwise_initializer"] = initName(l.cfg.conv.pointwiseInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["depthwise_regularizer"] = regConfig(l.cfg.more.depthwiseReg)
	m["pointwise_regularizer"] = regConfig(l.cfg.conv.pointwiseReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	m["depthwise_constraint"] = constraintConfig(l.cfg.ml.constraints["depthwise_kernel"])
	m["pointwise_constraint"] = constraintConfig(l.cfg.ml.constraints["pointwise_kernel"])
	m["bias_constraint"] = constraintConfig(l.cfg.ml.constraints["bias"])
	return m
}
