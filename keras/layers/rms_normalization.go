package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RMSNormalization is keras.layers.RMSNormalization: each sample is
// divided by the root mean square of its values along the axis (or axes;
// default the last), x / sqrt(mean(x²) + epsilon), and multiplied by a
// learned scale, as in transformer blocks that drop layer normalization's
// centering.
type RMSNormalization struct {
	Base
	axes    []int
	listed  bool
	epsilon float64
	Scale   *ops.Variable
}

// NewRMSNormalization makes an RMSNormalization layer. Options: WithAxis
// (default -1) or WithAxes (trailing axes), WithEpsilon (default 1e-6),
// WithName.
func NewRMSNormalization(opts ...Option) *RMSNormalization {
	l := &RMSNormalization{epsilon: 1e-6}
	l.init("RMSNormalization", []string{"axis", "epsilon"}, opts)
	l.axes, l.listed = axesOption(l.cfg, -1)
	if l.cfg.set["epsilon"] {
		l.epsilon = l.cfg.epsilon
	}
	if len(l.axes) == 0 && l.err == nil {
		l.err = fmt.Errorf("layers: RMSNormalization %q: axis must name at least one axis", l.name)
	}
	if !(l.epsilon >= 0) && l.err == nil {
		l.err = fmt.Errorf("layers: RMSNormalization %q: epsilon must not be negative, got %v", l.name, l.epsilon)
	}
	return l
}

// scaleAxes resolves the axes for an input of rank r: they must be the
// last ones, along which Keras' scale broadcasts.
func (l *RMSNormalization) scaleAxes(r int) ([]int, error) {
	axes, err := normalizeAxes(l.axes, r)
	if err != nil {
		return nil, err
	}
	for i, a := range axes {
		if a != r-len(axes)+i {
			return nil, fmt.Errorf("axes %v: only the last axes of an input of rank %d are supported (the scale broadcasts along them)", l.axes, r)
		}
	}
	return axes, nil
}

// Build implements Layer.
func (l *RMSNormalization) Build(in []ops.Shape) error {
	if len(in) != 1 {
		return fmt.Errorf("needs one input, got %v", shapesStr(in))
	}
	s := in[0]
	axes, err := l.scaleAxes(len(s))
	if err != nil {
		return err
	}
	shape := make(ops.Shape, len(axes))
	for i, a := range axes {
		if s[a] <= 0 {
			return fmt.Errorf("axis %d of input shape %v must have a known size", a, s)
		}
		shape[i] = s[a]
	}
	l.Scale = l.AddWeight("scale", shape, Ones(), true, nil)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RMSNormalization) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	axes, err := l.scaleAxes(x.Rank())
	if err == nil && !x.Shape()[axes[0]:].Equal(l.Scale.Shape()) {
		err = fmt.Errorf("input shape %v does not match the scale %v", x.Shape(), l.Scale.Shape())
	}
	if err != nil {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (RMSNormalization)", l.name), Msg: err.Error()})
	}
	rrms := ops.Rsqrt(ops.AddScalar(ops.Mean(ops.Square(x), true, axes...), float32(l.epsilon)))
	return ops.Mul(ops.Mul(x, rrms), x.Trace().Read(l.Scale))
}

// GetConfig implements Layer.
func (l *RMSNormalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = axisConfig(l.axes, l.listed)
	m["epsilon"] = l.epsilon
	return m
}
