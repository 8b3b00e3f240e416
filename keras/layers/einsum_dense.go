package layers

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// EinsumDense is keras.layers.EinsumDense: a dense layer whose input,
// kernel and output axes an Einstein summation equation names ("ab,bc->ac"
// is Dense; "abc,cde->abde" projects the last axis to a (d, e) block per
// step, as attention's projections do), plus a bias along the bias_axes
// letters of the output and an activation. The kernel's shape comes from
// the input's axes and the output_shape (the output without the batch, -1
// where the input gives the size). Equations are Keras' three forms:
// "X,Y->Z", "...X,Y->...Z" and "X...,Y->Z...".
//
// Its kernel initialisation draws over the kernel's shape as a Dense
// kernel's (Keras' VarianceScaling uses the equation's input and output
// axes for the fans); weights loaded from a file are Keras'.
type EinsumDense struct {
	Base
	equation    string
	outputShape []int // without the batch; -1: None
	act         func(ops.Tensor) ops.Tensor
	Kernel      *ops.Variable
	Bias        *ops.Variable
}

// NewEinsumDense makes an EinsumDense layer for the equation and the
// output shape without the batch (-1 where the input sets the size).
// Options: WithBiasAxes, WithActivation, WithKernelInitializer,
// WithBiasInitializer, their regularizers and constraints, WithName.
func NewEinsumDense(equation string, outputShape []int, opts ...Option) *EinsumDense {
	l := &EinsumDense{equation: equation, outputShape: append([]int(nil), outputShape...)}
	l.init("EinsumDense", []string{"bias_axes", "activation", "kernel_initializer", "bias_initializer", "kernel_regularizer",
		"bias_regularizer", "kernel_constraint", "bias_constraint"}, opts)
	var err error
	l.act, err = activationFn(l.cfg.activation)
	if err == nil {
		_, err = splitEinsumDense(equation)
	}
	for _, d := range outputShape {
		if err == nil && (d == 0 || d < -1) {
			err = fmt.Errorf("output_shape %v: sizes must be positive (or None)", outputShape)
		}
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: EinsumDense %q: %w", l.name, err)
	}
	return l
}

// einsumDenseSpec is an equation of one of Keras' three forms.
type einsumDenseSpec struct {
	input, weight, output string
	left                  bool // "...X,Y->...Z"
}

var einsumDenseForms = []struct {
	re   *regexp.Regexp
	left bool
}{
	{regexp.MustCompile(`^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$`), false},
	{regexp.MustCompile(`^\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)$`), true},
	{regexp.MustCompile(`^([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\.$`), false},
}

func splitEinsumDense(eq string) (einsumDenseSpec, error) {
	for _, f := range einsumDenseForms {
		if m := f.re.FindStringSubmatch(eq); m != nil {
			return einsumDenseSpec{input: m[1], weight: m[2], output: m[3], left: f.left}, nil
		}
	}
	return einsumDenseSpec{}, fmt.Errorf("invalid equation %q: equations must be in the form [X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...", eq)
}

// shapes returns the kernel and bias shapes (nil: no bias) for an input
// of shape in (batch first), as Keras analyses the equation.
func (l *EinsumDense) shapes(in ops.Shape) (kernel, bias ops.Shape, err error) {
	sp, err := splitEinsumDense(l.equation)
	if err != nil {
		return nil, nil, err
	}
	elided := len(in) - len(sp.input)
	if elided < 0 || elided > 0 && !strings.Contains(l.equation, "...") {
		return nil, nil, fmt.Errorf("equation %q names %d input axes, the input %v has %d", l.equation, len(sp.input), in, len(in))
	}
	// The full output shape: the batch, output_shape, and the axes "..."
	// stands for.
	full := append(ops.Shape{in[0]}, l.outputShape...)
	if elided > 0 && sp.left {
		full = append(ops.Shape{in[0]}, append(in[1:elided].Clone(), l.outputShape...)...)
	} else if elided > 0 {
		full = append(full, in[len(in)-elided:]...)
	}
	inAt := map[rune]int{}
	outAt := map[rune]int{}
	for i, r := range sp.input {
		inAt[r] = i
		if sp.left {
			inAt[r] = i + elided
		}
	}
	for i, r := range sp.output {
		outAt[r] = i
		if sp.left {
			outAt[r] = i + elided
		}
	}
	if len(sp.output)+elided != len(full) {
		return nil, nil, fmt.Errorf("output_shape %v does not fit the output %q of equation %q", l.outputShape, sp.output, l.equation)
	}
	for r, i := range inAt {
		if o, ok := outAt[r]; ok && full[o] > 0 && full[o] != in[i] {
			return nil, nil, fmt.Errorf("input shape %v and output shape %v do not match at shared axis %q", in, full, r)
		}
	}
	for _, r := range sp.output {
		if !strings.ContainsRune(sp.input, r) && !strings.ContainsRune(sp.weight, r) {
			return nil, nil, fmt.Errorf("output axis %q is in neither the input %q nor the weight %q", r, sp.input, sp.weight)
		}
	}
	for _, r := range sp.weight {
		var d int
		if o, ok := outAt[r]; ok {
			d = full[o]
		} else if i, ok := inAt[r]; ok {
			d = in[i]
		} else {
			return nil, nil, fmt.Errorf("weight axis %q is in neither the input %q nor the output %q", r, sp.input, sp.output)
		}
		if d <= 0 {
			return nil, nil, fmt.Errorf("weight axis %q has no known size (input %v, output_shape %v)", r, in, l.outputShape)
		}
		kernel = append(kernel, d)
	}
	if ba := l.cfg.ml.biasAxes; ba != "" {
		first := len(sp.output)
		for _, r := range ba {
			i := strings.IndexRune(sp.output, r)
			if i < 0 {
				return nil, nil, fmt.Errorf("bias axis %q is not in the output %q", r, sp.output)
			}
			first = min(first, i)
		}
		for _, r := range sp.output[first:] {
			d := 1
			if strings.ContainsRune(ba, r) {
				if d = full[outAt[r]]; d <= 0 {
					return nil, nil, fmt.Errorf("bias axis %q has no known size (input %v, output_shape %v)", r, in, l.outputShape)
				}
			}
			bias = append(bias, d)
		}
		if !sp.left {
			for range max(elided, 0) {
				bias = append(bias, 1)
			}
		}
	}
	return kernel, bias, nil
}

// Build implements Layer.
func (l *EinsumDense) Build(in []ops.Shape) error {
	if len(in) != 1 {
		return fmt.Errorf("needs one input, got %v", shapesStr(in))
	}
	kernel, bias, err := l.shapes(in[0])
	if err != nil {
		return err
	}
	ki, bi := l.cfg.kernelInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if bi == nil {
		bi = Zeros()
	}
	l.Kernel = l.AddWeight("kernel", kernel, ki, true, l.cfg.kernelReg)
	if bias != nil {
		l.Bias = l.AddWeight("bias", bias, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *EinsumDense) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	tr := x.Trace()
	if k, _, err := l.shapes(x.Shape()); err != nil || !k.Equal(l.Kernel.Shape()) {
		if err == nil {
			err = fmt.Errorf("input shape %v needs a kernel of %v, the layer's is %v", x.Shape(), k, l.Kernel.Shape())
		}
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (EinsumDense)", l.name), Msg: err.Error()})
	}
	y := ops.Einsum(l.equation, x, tr.Read(l.Kernel))
	if l.Bias != nil {
		y = ops.Add(y, tr.Read(l.Bias))
	}
	return activate(l.act, y)
}

// GetConfig implements Layer.
func (l *EinsumDense) GetConfig() map[string]any {
	m := l.baseConfig()
	shape := make([]any, len(l.outputShape))
	for i, d := range l.outputShape {
		shape[i] = d
		if d < 0 {
			shape[i] = nil
		}
	}
	m["output_shape"] = shape
	m["equation"] = l.equation
	m["activation"] = actName(l.cfg.activation)
	m["bias_axes"] = nil
	if l.cfg.ml.biasAxes != "" {
		m["bias_axes"] = l.cfg.ml.biasAxes
	}
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	m["kernel_constraint"] = constraintConfig(l.cfg.ml.constraints["kernel"])
	m["bias_constraint"] = constraintConfig(l.cfg.ml.constraints["bias"])
	return m
}
