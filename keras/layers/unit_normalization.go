package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// UnitNormalization is keras.layers.UnitNormalization: each sample is
// divided by its L2 norm along the axis (or axes; default the last), so
// that the norm is 1 (x · min(1/‖x‖, 1e12), keras.ops.normalize with
// epsilon 1e-12: an all-zero vector stays zero).
type UnitNormalization struct {
	Base
	axes   []int
	listed bool
}

// NewUnitNormalization makes a UnitNormalization layer. Options: WithAxis
// (default -1) or WithAxes, WithName.
func NewUnitNormalization(opts ...Option) *UnitNormalization {
	l := &UnitNormalization{}
	l.init("UnitNormalization", []string{"axis"}, opts)
	l.axes, l.listed = axesOption(l.cfg, -1)
	if len(l.axes) == 0 && l.err == nil {
		l.err = fmt.Errorf("layers: UnitNormalization %q: axis must name at least one axis", l.name)
	}
	return l
}

// Build implements Layer.
func (l *UnitNormalization) Build(in []ops.Shape) error {
	if len(in) != 1 {
		return fmt.Errorf("needs one input, got %v", shapesStr(in))
	}
	if _, err := normalizeAxes(l.axes, len(in[0])); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *UnitNormalization) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	axes, err := normalizeAxes(l.axes, x.Rank())
	if err != nil {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (UnitNormalization)", l.name), Msg: err.Error()})
	}
	inv := ops.Rsqrt(ops.Sum(ops.Square(x), true, axes...))
	inv = ops.Minimum(inv, x.Trace().Scalar(1e12))
	return ops.Mul(x, inv)
}

// GetConfig implements Layer.
func (l *UnitNormalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = axisConfig(l.axes, l.listed)
	return m
}
