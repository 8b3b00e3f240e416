package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Conv1D is keras.layers.Conv1D: a 1-D convolution over (batch, steps,
// channels) input with a kernel (kernel_size, in/groups, filters), plus
// bias and activation; groups as Conv2D's. padding is "valid", "same" or "causal" (zeros before the
// sequence only, so output t sees inputs up to t).
//
//	keras.layers.Conv1D(32, 3, padding="causal", dilation_rate=2)
//	layers.NewConv1D(32, 3, layers.WithPadding("causal"), layers.WithDilationRate(2))
//
// It runs as a [ops.Conv2D] of a 1 x kernel_size kernel over a 1 x steps
// image.
type Conv1D struct {
	Base
	filters int
	kernel  int
	stride  int
	dil     int
	causal  bool
	groups  int // Keras' groups (grouped_conv.go)
	act     func(ops.Tensor) ops.Tensor
	Kernel  *ops.Variable
	Bias    *ops.Variable
}

// one expands Keras' int-or-1-tuple argument of a 1-D layer; the value
// must be positive.
func one(what string, v []int, def int) (int, error) {
	switch len(v) {
	case 0:
		return def, nil
	case 1:
		if v[0] <= 0 {
			return v[0], fmt.Errorf("%s must be positive, got %v", what, v)
		}
		return v[0], nil
	}
	return 0, fmt.Errorf("%s takes 1 value, got %v", what, v)
}

// causalPadding turns padding "causal" into "valid" before the options are
// checked (they accept only "valid" and "same"), recording it in *causal.
func causalPadding(opts []Option, causal *bool) []Option {
	return append(opts[:len(opts):len(opts)], func(c *config) {
		if c.padding == "causal" {
			c.padding, *causal = "valid", true
		}
	})
}

// NewConv1D makes a Conv1D layer with filters outputs and a kernel of
// kernelSize steps. Options: WithStrides, WithPadding ("valid", "same",
// "causal"), WithDilationRate, WithActivation, WithUseBias, WithGroups,
// initializers and regularizers, WithInputShape, WithName.
func NewConv1D(filters, kernelSize int, opts ...Option) *Conv1D {
	l := &Conv1D{filters: filters}
	l.init("Conv1D", []string{"kernel_size", "strides", "padding", "dilation_rate", "activation", "use_bias", "kernel_initializer",
		"bias_initializer", "kernel_regularizer", "bias_regularizer", "groups"}, causalPadding(opts, &l.causal))
	var errs []error
	var err error
	ks := []int{kernelSize}
	if l.cfg.kernelSize != nil {
		ks = l.cfg.kernelSize
	}
	if l.kernel, err = one("kernel_size", ks, 0); err != nil {
		errs = append(errs, err)
	}
	l.stride, err = one("strides", l.cfg.strides, 1)
	errs = append(errs, err)
	l.dil, err = one("dilation_rate", l.cfg.dilation, 1)
	errs = append(errs, err)
	l.act, err = activationFn(l.cfg.activation)
	errs = append(errs, err)
	if filters <= 0 || l.kernel <= 0 {
		errs = append(errs, fmt.Errorf("filters %d and kernel_size %v must be positive", filters, ks))
	}
	if l.stride > 1 && l.dil > 1 {
		errs = append(errs, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)"))
	}
	l.groups, err = readGroups(l.cfg, filters)
	errs = append(errs, err)
	for _, e := range errs {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: Conv1D %q: %w", l.name, e)
		}
	}
	return l
}

// Build implements Layer.
func (l *Conv1D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 3 {
		return fmt.Errorf("needs one rank-3 (batch, steps, channels) input, got %v", shapesStr(in))
	}
	c := in[0][2]
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
	if err := checkGroups(c, l.groups); err != nil {
		return err
	}
	l.Kernel = l.AddWeight("kernel", ops.Shape{l.kernel, c / l.groups, l.filters}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Conv1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 3)
	tr := x.Trace()
	s := x.Shape()
	x4 := ops.Reshape(x, ops.Shape{s[0], 1, s[1], s[2]})
	if l.causal {
		x4 = ops.Pad(x4, [][2]int{{0, 0}, {0, 0}, {(l.kernel - 1) * l.dil, 0}, {0, 0}})
	}
	w := tr.Read(l.Kernel)
	w4 := ops.Reshape(w, append(ops.Shape{1}, w.Shape()...))
	y := ops.GroupedConv2D(x4, w4, l.groups, ops.Conv2DAttrs{Strides: [2]int{1, l.stride}, Dilations: [2]int{1, l.dil}, Padding: l.cfg.padding})
	ys := y.Shape()
	y = ops.Reshape(y, ops.Shape{ys[0], ys[2], ys[3]})
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// padding is the Keras padding argument.
func (l *Conv1D) padding() string {
	if l.causal {
		return "causal"
	}
	return l.cfg.padding
}

// GetConfig implements Layer.
func (l *Conv1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = []any{l.kernel}
	m["strides"] = []any{l.stride}
	m["padding"] = l.padding()
	m["data_format"] = "channels_last"
	m["dilation_rate"] = []any{l.dil}
	m["groups"] = l.groups
	m["activation"] = actName(l.cfg.activation)
	m["use_bias"] = l.cfg.useBias
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	return m
}
