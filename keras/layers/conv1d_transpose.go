package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Conv1DTranspose is keras.layers.Conv1DTranspose: the transposed (or
// "deconvolution") 1-D convolution of a (batch, steps, channels) input
// with a kernel (kernel_size, filters, in), the gradient of a Conv1D with
// respect to its input; then bias and activation. It runs as an
// [ops.Conv2DTranspose] over a 1 x steps image.
type Conv1DTranspose struct {
	Base
	filters, kernel, stride, dil int
	outputPadding                int // -1: None
	act                          func(ops.Tensor) ops.Tensor
	Kernel                       *ops.Variable
	Bias                         *ops.Variable
}

// NewConv1DTranspose makes a Conv1DTranspose layer with filters outputs
// and a kernel of kernelSize steps. Options: WithStrides, WithPadding
// ("valid", "same"), WithOutputPadding (one value, below the stride),
// WithDilationRate, WithActivation, WithUseBias, initializers,
// regularizers and constraints, WithInputShape, WithName.
func NewConv1DTranspose(filters, kernelSize int, opts ...Option) *Conv1DTranspose {
	l := &Conv1DTranspose{filters: filters, outputPadding: -1}
	l.init("Conv1DTranspose", []string{"kernel_size", "strides", "padding", "output_padding", "dilation_rate", "activation",
		"use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
		"kernel_constraint", "bias_constraint"}, opts)
	var err error
	l.kernel, l.stride, l.dil, err = window1D(l.cfg, kernelSize)
	if err == nil {
		l.act, err = activationFn(l.cfg.activation)
	}
	if err == nil && filters <= 0 {
		err = fmt.Errorf("filters must be positive, got %d", filters)
	}
	if op := l.cfg.conv.outputPadding; err == nil && op != nil {
		switch {
		case len(op) != 1:
			err = fmt.Errorf("output_padding takes 1 value, got %v", op)
		case op[0] < 0 || op[0] >= l.stride:
			err = fmt.Errorf("output_padding %d must be in [0, strides %d)", op[0], l.stride)
		default:
			l.outputPadding = op[0]
		}
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: Conv1DTranspose %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer.
func (l *Conv1DTranspose) Build(in []ops.Shape) error {
	c, err := rank3Channels(in)
	if err != nil {
		return err
	}
	if n := in[0][1]; n > 0 {
		if _, err := ops.ConvTransposeOutputSize(n, l.kernel, l.stride, l.dil, l.cfg.padding, l.outputPadding); err != nil {
			return err
		}
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	l.Kernel = l.AddWeight("kernel", ops.Shape{l.kernel, l.filters, c}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Conv1DTranspose) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 3)
	tr := x.Trace()
	s := x.Shape()
	w := tr.Read(l.Kernel)
	ws := w.Shape()
	attrs := ops.Conv2DTransposeAttrs{Strides: [2]int{1, l.stride}, Dilations: [2]int{1, l.dil}, Padding: l.cfg.padding}
	if l.outputPadding >= 0 {
		attrs.OutputPadding = []int{0, l.outputPadding}
	}
	y := ops.Conv2DTranspose(ops.Reshape(x, ops.Shape{s[0], 1, s[1], s[2]}), ops.Reshape(w, ops.Shape{1, ws[0], ws[1], ws[2]}), attrs)
	ys := y.Shape()
	y = ops.Reshape(y, ops.Shape{ys[0], ys[2], ys[3]})
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *Conv1DTranspose) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = []any{l.kernel}
	m["strides"] = []any{l.stride}
	m["padding"] = l.cfg.padding
	m["output_padding"] = nil
	if l.outputPadding >= 0 {
		m["output_padding"] = []any{l.outputPadding}
	}
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.dil}
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	m["kernel_constraint"] = constraintConfig(l.cfg.ml.constraints["kernel"])
	m["bias_constraint"] = constraintConfig(l.cfg.ml.constraints["bias"])
	return m
}
