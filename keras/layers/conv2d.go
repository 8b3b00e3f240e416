package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Conv2D is keras.layers.Conv2D: a 2-D convolution over NHWC input with an
// HWIO kernel (kh, kw, in/groups, filters), plus bias and activation.
// With groups (WithGroups) the channels split into groups convolved apart
// ([ops.GroupedConv2D]); groups equal to the input's channels is a
// depthwise convolution (ConvNeXt's).
type Conv2D struct {
	Base
	filters int
	kernel  [2]int
	attrs   ops.Conv2DAttrs
	groups  int // Keras' groups (grouped_conv.go)
	act     func(ops.Tensor) ops.Tensor
	Kernel  *ops.Variable
	Bias    *ops.Variable
}

// NewConv2D makes a Conv2D layer with filters outputs and a square kernel
// of kernelSize (WithKernelSize sets height and width apart). Options:
// WithKernelSize, WithStrides, WithPadding, WithDilationRate,
// WithActivation, WithUseBias, WithGroups, initializers and
// regularizers, WithInputShape, WithName.
func NewConv2D(filters, kernelSize int, opts ...Option) *Conv2D {
	l := &Conv2D{filters: filters}
	l.init("Conv2D", []string{"kernel_size", "strides", "padding", "dilation_rate", "activation", "use_bias", "kernel_initializer",
		"bias_initializer", "kernel_regularizer", "bias_regularizer", "groups"}, opts)
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
	if filters <= 0 || l.kernel[0] <= 0 || l.kernel[1] <= 0 {
		errs = append(errs, fmt.Errorf("filters %d and kernel_size %v must be positive", filters, ks))
	}
	if (l.attrs.Strides != [2]int{1, 1}) && (l.attrs.Dilations != [2]int{1, 1}) {
		errs = append(errs, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)"))
	}
	l.groups, err = readGroups(l.cfg, filters)
	errs = append(errs, err)
	for _, e := range errs {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: Conv2D %q: %w", l.name, e)
		}
	}
	return l
}

// Build implements Layer.
func (l *Conv2D) Build(in []ops.Shape) error {
	s := in[0]
	if len(s) != 4 {
		return fmt.Errorf("needs a rank-4 (batch, height, width, channels) input, got %v", s)
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	if err := checkGroups(s[3], l.groups); err != nil {
		return err
	}
	l.Kernel = l.AddWeight("kernel", ops.Shape{l.kernel[0], l.kernel[1], s[3] / l.groups, l.filters}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Conv2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 4)
	tr := x.Trace()
	y := ops.GroupedConv2D(x, tr.Read(l.Kernel), l.groups, l.attrs) // ops.Conv2D for groups 1
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *Conv2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = []any{l.kernel[0], l.kernel[1]}
	m["strides"] = []any{l.attrs.Strides[0], l.attrs.Strides[1]}
	m["padding"] = l.attrs.Padding
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.attrs.Dilations[0], l.attrs.Dilations[1]}
	m["groups"] = l.groups
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	return m
}
