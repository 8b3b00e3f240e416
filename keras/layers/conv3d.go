package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Conv3D is keras.layers.Conv3D: a 3-D convolution of a (batch, depth,
// height, width, channels) volume with a kernel (kd, kh, kw, in, filters),
// plus bias and activation.
//
// It runs as one [ops.Conv2D] over height and width: the kd depth taps of
// every output depth position are stacked along the channels (a
// (batch*out_depth, height, width, kd*in) input) against the kernel
// viewed as (kh, kw, kd*in, filters).
type Conv3D struct {
	Base
	filters   int
	kernel    [3]int
	strides   [3]int
	dilations [3]int
	act       func(ops.Tensor) ops.Tensor
	Kernel    *ops.Variable
	Bias      *ops.Variable
}

// triple expands Keras' int-or-tuple argument of a 3-D layer; the values
// must be positive.
func triple(what string, v []int, def int) ([3]int, error) {
	var t [3]int
	switch len(v) {
	case 0:
		return [3]int{def, def, def}, nil
	case 1:
		t = [3]int{v[0], v[0], v[0]}
	case 3:
		t = [3]int{v[0], v[1], v[2]}
	default:
		return t, fmt.Errorf("%s takes 1 or 3 values, got %v", what, v)
	}
	if t[0] <= 0 || t[1] <= 0 || t[2] <= 0 {
		return t, fmt.Errorf("%s must be positive, got %v", what, v)
	}
	return t, nil
}

// NewConv3D makes a Conv3D layer with filters outputs and a cubic kernel
// of kernelSize (WithKernelSize sets the three sizes apart). Options:
// WithKernelSize, WithStrides, WithPadding ("valid", "same"),
// WithDilationRate, WithActivation, WithUseBias, initializers,
// regularizers and constraints, WithInputShape, WithName.
func NewConv3D(filters, kernelSize int, opts ...Option) *Conv3D {
	l := &Conv3D{filters: filters}
	l.init("Conv3D", []string{"kernel_size", "strides", "padding", "dilation_rate", "activation", "use_bias",
		"kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer", "kernel_constraint", "bias_constraint"}, opts)
	ks := []int{kernelSize}
	if l.cfg.kernelSize != nil {
		ks = l.cfg.kernelSize
	}
	var errs [4]error
	l.kernel, errs[0] = triple("kernel_size", ks, 0)
	l.strides, errs[1] = triple("strides", l.cfg.strides, 1)
	l.dilations, errs[2] = triple("dilation_rate", l.cfg.dilation, 1)
	l.act, errs[3] = activationFn(l.cfg.activation)
	err := firstErr(errs[:]...)
	if err == nil && filters <= 0 {
		err = fmt.Errorf("filters must be positive, got %d", filters)
	}
	if err == nil && l.strides != [3]int{1, 1, 1} && l.dilations != [3]int{1, 1, 1} {
		err = fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)")
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: Conv3D %q: %w", l.name, err)
	}
	return l
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Build implements Layer.
func (l *Conv3D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 5 {
		return fmt.Errorf("needs one rank-5 (batch, depth, height, width, channels) input, got %v", shapesStr(in))
	}
	s := in[0]
	if s[4] <= 0 {
		return fmt.Errorf("the channel dimension of %v must be known", s)
	}
	for d := range 3 {
		if s[1+d] > 0 {
			if _, _, err := ops.ConvOutputSize(s[1+d], l.kernel[d], l.strides[d], l.dilations[d], l.cfg.padding); err != nil {
				return fmt.Errorf("input %v: %w", s, err)
			}
		}
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	l.Kernel = l.AddWeight("kernel", ops.Shape{l.kernel[0], l.kernel[1], l.kernel[2], s[4], l.filters}, ki, true, l.cfg.kernelReg)
	if l.cfg.useBias {
		l.Bias = l.AddWeight("bias", ops.Shape{l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Conv3D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 5)
	tr := x.Trace()
	s := x.Shape()
	g, err := newDepthGeom(s[1], l.kernel[0], l.strides[0], l.dilations[0], l.cfg.padding)
	if err != nil {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (Conv3D)", l.name), Msg: fmt.Sprintf("input %v: %v", s, err)})
	}
	xp := g.padDepth(x)
	taps := make([]ops.Tensor, 0, g.hi-g.lo+1)
	for i := g.lo; i <= g.hi; i++ {
		taps = append(taps, g.tap(xp, i)) // (b, out, h, w, c)
	}
	stacked := taps[0]
	if len(taps) > 1 {
		stacked = ops.Concat(-1, taps...)
	}
	c := s[4]
	n := len(taps)
	x4 := ops.Reshape(stacked, ops.Shape{s[0] * g.out, s[2], s[3], n * c})
	w := tr.Read(l.Kernel)
	if n < g.k { // the depth taps that read only padding add nothing
		w = ops.Slice(w, []int{g.lo, 0, 0, 0, 0}, []int{n, -1, -1, -1, -1})
	}
	w = ops.Transpose(w, []int{1, 2, 0, 3, 4}) // (kh, kw, taps, c, f)
	w4 := ops.Reshape(w, ops.Shape{l.kernel[1], l.kernel[2], n * c, l.filters})
	y := ops.Conv2D(x4, w4, ops.Conv2DAttrs{Strides: [2]int{l.strides[1], l.strides[2]},
		Dilations: [2]int{l.dilations[1], l.dilations[2]}, Padding: l.cfg.padding})
	ys := y.Shape()
	y = ops.Reshape(y, ops.Shape{s[0], g.out, ys[1], ys[2], l.filters})
	if l.Bias != nil {
		y = ops.BiasAdd(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *Conv3D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["filters"] = l.filters
	m["kernel_size"] = intsAny(l.kernel[:])
	m["strides"] = intsAny(l.strides[:])
	m["padding"] = l.cfg.padding
	m["data_format"] = "channels_last"
	m["dilation_rate"] = intsAny(l.dilations[:])
	m["groups"] = 1
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
