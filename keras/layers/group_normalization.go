package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// GroupNormalization is keras.layers.GroupNormalization: the channels (the
// axis, default the last) are split into groups, and each sample's values
// of each group are normalized by their own mean and variance, then scaled
// by gamma and offset by beta per channel. With one group it is layer
// normalization over all but the batch; with one group per channel
// (groups -1), instance normalization. Unlike batch normalization it has
// no moving statistics: training and inference compute the same thing.
type GroupNormalization struct {
	Base
	groups        int // as given; -1 becomes the channel count in Build
	axis          int
	epsilon       float64
	center, scale bool
	Gamma, Beta   *ops.Variable
}

// NewGroupNormalization makes a GroupNormalization layer of the given
// number of groups (Keras' default is 32; -1: one group per channel),
// which must divide the channels. Options: WithAxis (default -1),
// WithEpsilon (1e-3), WithCenter, WithScale (true), WithGammaInitializer,
// WithBetaInitializer, WithGammaRegularizer, WithBetaRegularizer,
// WithGammaConstraint, WithBetaConstraint, WithName.
func NewGroupNormalization(groups int, opts ...Option) *GroupNormalization {
	l := &GroupNormalization{groups: groups, axis: -1, epsilon: 1e-3, center: true, scale: true}
	l.init("GroupNormalization", []string{"axis", "epsilon", "center", "scale", "gamma_initializer", "beta_initializer",
		"gamma_regularizer", "beta_regularizer", "gamma_constraint", "beta_constraint"}, opts)
	c := l.cfg
	if c.set["axis"] {
		l.axis = c.axis
	}
	if c.set["epsilon"] {
		l.epsilon = c.epsilon
	}
	if c.set["center"] {
		l.center = c.center
	}
	if c.set["scale"] {
		l.scale = c.scaleOn
	}
	if l.err == nil && groups <= 0 && groups != -1 {
		l.err = fmt.Errorf("layers: GroupNormalization %q: groups must be positive (or -1 for instance normalization), got %d", l.name, groups)
	}
	if l.err == nil && !(l.epsilon >= 0) {
		l.err = fmt.Errorf("layers: GroupNormalization %q: epsilon must not be negative, got %v", l.name, l.epsilon)
	}
	return l
}

// Build implements Layer.
func (l *GroupNormalization) Build(in []ops.Shape) error {
	if len(in) != 1 {
		return fmt.Errorf("needs one input, got %v", shapesStr(in))
	}
	s := in[0]
	a := l.axis
	if a < 0 {
		a += len(s)
	}
	if a <= 0 || a >= len(s) {
		return fmt.Errorf("axis %d is out of range for an input of shape %v (or is the batch)", l.axis, s)
	}
	dim := s[a]
	if dim <= 0 {
		return fmt.Errorf("axis %d of input shape %v must have a known size", l.axis, s)
	}
	if l.groups == -1 {
		l.groups = dim
	}
	if dim < l.groups {
		return fmt.Errorf("number of groups (%d) cannot be more than the number of channels (%d)", l.groups, dim)
	}
	if dim%l.groups != 0 {
		return fmt.Errorf("number of groups (%d) must divide the number of channels (%d)", l.groups, dim)
	}
	gi, bi := l.cfg.ml.gammaInit, l.cfg.ml.betaInit
	if gi == nil {
		gi = Ones()
	}
	if bi == nil {
		bi = Zeros()
	}
	if l.scale {
		l.Gamma = l.AddWeight("gamma", ops.Shape{dim}, gi, true, nil)
	}
	if l.center {
		l.Beta = l.AddWeight("beta", ops.Shape{dim}, bi, true, nil)
	}
	l.built = true
	return nil
}

// Call implements Layer: Keras' arithmetic, x·inv + (beta - mean·inv) with
// inv = gamma / sqrt(variance + epsilon), on the input viewed with the
// channel axis split into (groups, channels per group).
func (l *GroupNormalization) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	tr := x.Trace()
	s := x.Shape()
	a := l.axis
	if a < 0 {
		a += len(s)
	}
	if a <= 0 || a >= len(s) || s[a]%l.groups != 0 || (l.Gamma != nil && l.Gamma.Shape()[0] != s[a]) {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (GroupNormalization)", l.name), Msg: fmt.Sprintf("input shape %v does not fit %d groups along axis %d", s, l.groups, l.axis)})
	}
	g, per := l.groups, s[a]/l.groups
	grouped := append(s[:a].Clone(), g, per)
	grouped = append(grouped, s[a+1:]...)
	xg := ops.Reshape(x, grouped)
	var axes []int
	for i := 1; i < len(grouped); i++ {
		if i != a {
			axes = append(axes, i)
		}
	}
	mean := ops.Mean(xg, true, axes...)
	variance := ops.Mean(ops.Square(ops.Sub(xg, mean)), true, axes...)
	inv := ops.Rsqrt(ops.AddScalar(variance, float32(l.epsilon)))
	bshape := make(ops.Shape, len(grouped)) // gamma and beta as (1, ..., groups, per, 1, ...)
	for i := range bshape {
		bshape[i] = 1
	}
	bshape[a], bshape[a+1] = g, per
	if l.Gamma != nil {
		inv = ops.Mul(inv, ops.Reshape(tr.Read(l.Gamma), bshape))
	}
	res := ops.Neg(ops.Mul(mean, inv))
	if l.Beta != nil {
		res = ops.Add(res, ops.Reshape(tr.Read(l.Beta), bshape))
	}
	y := ops.Add(ops.Mul(xg, inv), res)
	return ops.Reshape(y, s)
}

// GetConfig implements Layer.
func (l *GroupNormalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["groups"] = l.groups
	m["axis"] = l.axis
	m["epsilon"] = l.epsilon
	m["center"] = l.center
	m["scale"] = l.scale
	m["gamma_initializer"] = initName(l.cfg.ml.gammaInit, "Ones")
	m["beta_initializer"] = initName(l.cfg.ml.betaInit, "Zeros")
	m["gamma_regularizer"] = regConfig(l.cfg.ml.regs["gamma"])
	m["beta_regularizer"] = regConfig(l.cfg.ml.regs["beta"])
	m["gamma_constraint"] = constraintConfig(l.cfg.ml.constraints["gamma"])
	m["beta_constraint"] = constraintConfig(l.cfg.ml.constraints["beta"])
	return m
}
