package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Conv2DTranspose is keras.layers.Conv2DTranspose: the transposed
// convolution of NHWC input with a kernel (kh, kw, filters, in), plus bias
// and activation. Each input pixel spreads over a window of the output,
// strides apart; with padding "same" and no output_padding the output is
// the input times the strides.
//
//	keras.layers.Conv2DTranspose(32, 3, strides=2, activation="relu", padding="same")
//	layers.NewConv2DTranspose(32, 3, layers.WithStrides(2), layers.WithActivation("relu"), layers.WithPadding("same"))
type Conv2DTranspose struct {
	Base
	filters int
	kernel  [2]int
	attrs   ops.Conv2DTransposeAttrs
	act     func(ops.Tensor) ops.Tensor
	Kernel  *ops.Variable
	Bias    *ops.Variable
}

// NewConv2DTranspose makes a Conv2DTranspose layer with filters outputs
// and a square kernel of kernelSize (WithKernelSize sets height and width
// apart). Options: WithKernelSize, WithStrides, WithPadding,
// WithOutputPadding, WithDilationRate, WithActivation, WithUseBias,
// initializers and regularizers, WithInputShape, WithName.
func NewConv2DTranspose(filters, kernelSize int, opts ...Option) *Conv2DTranspose {
	l := &Conv2DTranspose{filters: filters}
	l.init("Conv2DTranspose", []string{"kernel_size", "strides", "padding", "output_padding", "dilation_rate", "activation", "use_bias",
		"kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer"}, opts)
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
	if op := l.cfg.conv.outputPadding; op != nil {
		switch len(op) {
		case 1:
			l.attrs.OutputPadding = []int{op[0], op[0]}
		case 2:
			l.attrs.OutputPadding = []int{op[0], op[1]}
		default:
			errs = append(errs, fmt.Errorf("output_padding takes 1 or 2 values, got %v", op))
		}
		for i, p := range l.attrs.OutputPadding {
			if p < 0 || p >= l.attrs.Strides[i] {
				errs = append(errs, fmt.Errorf("output_padding %v must be non-negative and strictly less than the strides %v", op, l.attrs.Strides))
				break
			}
		}
	}
	l.act, err = activationFn(l.cfg.activation)
	errs = append(errs, err)
	if filters <= 0 || l.kernel[0] <= 0 || l.kernel[1] <= 0 {
		errs = append(errs, fmt.Errorf("filters %d and kernel_size %v must be positive", filters, ks))
	}
	if (l.attrs.Strides != [2]int{1, 1}) && (l.attrs.Dilations != [2]int{1, 1}) {
		errs = append(errs, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)"))
	}
	for _, e := range errs {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: Conv2DTranspose %q: %w", l.name, e)
		}
	}
	return l
}

// Build implements Layer.
func (l *Conv2DTranspose) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	c := in[0][3]
	if c <= 0 {
		return fmt.Errorf("the channel dimension of %v must be known", in[0])
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	l.Kernel = l.AddWeight("kernel", ops.Shape{l.kernel[0], l.kernel[1], l.filters, c}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Conv2DTranspose) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 4)
	tr := x.Trace()
	y := ops.Conv2DTranspose(x, tr.Read(l.Kernel), l.attrs)
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *Conv2DTranspose) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = []any{l.kernel[0], l.kernel[1]}
	m["strides"] = []any{l.attrs.Strides[0], l.attrs.Strides[1]}
	m["padding"] = l.attrs.Padding
	m["output_padding"] = nil
	if l.attrs.OutputPadding != nil {
		m["output_padding"] = intsAny(l.attrs.OutputPadding)
	}
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.attrs.Dilations[0], l.attrs.Dilations[1]}
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	return m
}
