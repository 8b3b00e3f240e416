package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// DepthwiseConv2D is keras.layers.DepthwiseConv2D: each input channel is
// convolved with its own depth_multiplier filters, kernel shape
// (kh, kw, in, depth_multiplier), output channel c*depth_multiplier+m; then
// bias and activation.
type DepthwiseConv2D struct {
	Base
	kernel          [2]int
	mult            int
	attrs           ops.Conv2DAttrs
	act             func(ops.Tensor) ops.Tensor
	DepthwiseKernel *ops.Variable
	Bias            *ops.Variable
}

// NewDepthwiseConv2D makes a DepthwiseConv2D layer with a square kernel of
// kernelSize (WithKernelSize sets height and width apart). Options:
// WithDepthMultiplier (default 1), WithKernelSize, WithStrides,
// WithPadding, WithDilationRate, WithActivation, WithUseBias,
// WithDepthwiseInitializer, WithBiasInitializer, WithDepthwiseRegularizer,
// WithBiasRegularizer, WithInputShape, WithName.
func NewDepthwiseConv2D(kernelSize int, opts ...Option) *DepthwiseConv2D {
	l := &DepthwiseConv2D{}
	l.init("DepthwiseConv2D", []string{"kernel_size", "strides", "padding", "dilation_rate", "depth_multiplier", "activation",
		"use_bias", "depthwise_initializer", "bias_initializer", "depthwise_regularizer", "bias_regularizer"}, opts)
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
	if (l.attrs.Strides != [2]int{1, 1}) && (l.attrs.Dilations != [2]int{1, 1}) {
		errs = append(errs, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)"))
	}
	for _, e := range errs {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: DepthwiseConv2D %q: %w", l.name, e)
		}
	}
	return l
}

// Build implements Layer.
func (l *DepthwiseConv2D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	c := in[0][3]
	if c <= 0 {
		return fmt.Errorf("the channel dimension of %v must be known", in[0])
	}
	ki, bi := l.cfg.more.depthwiseInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	// Keras 3 names it "kernel" (Keras 2 and SeparableConv: "depthwise_kernel").
	l.DepthwiseKernel = l.addWeightAs("kernel", "depthwise_kernel", ops.Shape{l.kernel[0], l.kernel[1], c, l.mult}, ki, true, l.cfg.more.depthwiseReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{c * l.mult}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *DepthwiseConv2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 4)
	tr := x.Trace()
	y := ops.DepthwiseConv2D(x, tr.Read(l.DepthwiseKernel), l.attrs)
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *DepthwiseConv2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["kernel_size"] = []any{l.kernel[0], l.kernel[1]}
	m["strides"] = []any{l.attrs.Strides[0], l.attrs.Strides[1]}
	m["padding"] = l.attrs.Padding
	m["depth_multiplier"] = l.mult
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.attrs.Dilations[0], l.attrs.Dilations[1]}
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["depthwise_initializer"] = initName(l.cfg.more.depthwiseInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["depthwise_regularizer"] = regConfig(l.cfg.more.depthwiseReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	return m
}
