package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// SeparableConv2D is keras.layers.SeparableConv2D: a depthwise convolution
// (kernel (kh, kw, in, depth_multiplier), with the strides, padding and
// dilation) followed by a 1x1 convolution to filters outputs (kernel
// (1, 1, in*depth_multiplier, filters)), plus bias and activation.
//
//	keras.layers.SeparableConv2D(64, 3, depth_multiplier=2, padding="same")
//	layers.NewSeparableConv2D(64, 3, layers.WithDepthMultiplier(2), layers.WithPadding("same"))
type SeparableConv2D struct {
	Base
	filters         int
	kernel          [2]int
	mult            int
	attrs           ops.Conv2DAttrs
	act             func(ops.Tensor) ops.Tensor
	DepthwiseKernel *ops.Variable
	PointwiseKernel *ops.Variable
	Bias            *ops.Variable
}

// NewSeparableConv2D makes a SeparableConv2D layer with filters outputs
// and a square depthwise kernel of kernelSize (WithKernelSize sets height
// and width apart). Options: WithDepthMultiplier (default 1),
// WithKernelSize, WithStrides, WithPadding, WithDilationRate,
// WithActivation, WithUseBias, WithDepthwiseInitializer,
// WithPointwiseInitializer, WithBiasInitializer, WithDepthwiseRegularizer,
// WithPointwiseRegularizer, WithBiasRegularizer, WithInputShape, WithName.
func NewSeparableConv2D(filters, kernelSize int, opts ...Option) *SeparableConv2D {
	l := &SeparableConv2D{filters: filters}
	l.init("SeparableConv2D", []string{"kernel_size", "strides", "padding", "dilation_rate", "depth_multiplier", "activation",
		"use_bias", "depthwise_initializer", "pointwise_initializer", "bias_initializer", "depthwise_regularizer",
		"pointwise_regularizer", "bias_regularizer"}, opts)
	var errs []error
	var err error
	ks := []int{kernelSize}
	if l.cfg.kernelSize != nil {
		ks = l.cfg.kernelSize
	}
	l.kernel, err = pair("kernel_size", ks, 0)
	errs = append(errs, err)
	l.attrs.Strides, err = pair("strides", l.cfg.strides, 1)
	errs = append(errs, err)
	l.attrs.Dilations, err = pair("dilation_rate", l.cfg.dilation, 1)
	errs = append(errs, err)
	l.attrs.Padding = l.cfg.padding
	l.act, err = activationFn(l.cfg.activation)
	errs = append(errs, err)
	l.mult = 1
	if l.cfg.set["depth_multiplier"] {
		l.mult = l.cfg.more.depthMultiplier
	}
	if l.mult <= 0 {
		errs = append(errs, fmt.Errorf("depth_multiplier must be positive, got %d", l.mult))
	}
	if filters <= 0 || l.kernel[0] <= 0 || l.kernel[1] <= 0 {
		errs = append(errs, fmt.Errorf("filters %d and kernel_size %v must be positive", filters, ks))
	}
	if (l.attrs.Strides != [2]int{1, 1}) && (l.attrs.Dilations != [2]int{1, 1}) {
		errs = append(errs, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)"))
	}
	for _, e := range errs {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: SeparableConv2D %q: %w", l.name, e)
		}
	}
	return l
}

// Build implements Layer.
func (l *SeparableConv2D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	c := in[0][3]
	if c <= 0 {
		return fmt.Errorf("the channel dimension of %v must be known", in[0])
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
	l.DepthwiseKernel = l.AddWeight("depthwise_kernel", ops.Shape{l.kernel[0], l.kernel[1], c, l.mult}, di, true, l.cfg.more.depthwiseReg)
	l.PointwiseKernel = l.AddWeight("pointwise_kernel", ops.Shape{1, 1, c * l.mult, l.filters}, pi, true, l.cfg.conv.pointwiseReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *SeparableConv2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 4)
	tr := x.Trace()
	y := ops.DepthwiseConv2D(x, tr.Read(l.DepthwiseKernel), l.attrs)
	y = ops.Conv2D(y, tr.Read(l.PointwiseKernel), ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{1, 1}, Padding: "valid"})
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *SeparableConv2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = []any{l.kernel[0], l.kernel[1]}
	m["strides"] = []any{l.attrs.Strides[0], l.attrs.Strides[1]}
	m["padding"] = l.attrs.Padding
	m["depth_multiplier"] = l.mult
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.attrs.Dilations[0], l.attrs.Dilations[1]}
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["depthwise_initializer"] = initName(l.cfg.more.depthwiseInit, "GlorotUniform")
	m["pointwise_initializer"] = initName(l.cfg.conv.pointwiseInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["depthwise_regularizer"] = regConfig(l.cfg.more.depthwiseReg)
	m["pointwise_regularizer"] = regConfig(l.cfg.conv.pointwiseReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	return m
}
