package layers

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// PReLU is keras.layers.PReLU: x for x > 0, alpha*x otherwise, with alpha
// a trainable weight of the input's shape without the batch axis (size 1
// along shared_axes), initialised to zeros by default.
//
//	keras.layers.PReLU(shared_axes=[1, 2])  →  layers.NewPReLU(layers.WithSharedAxes(1, 2))
type PReLU struct {
	Base
	// Alpha holds the slopes for negative inputs.
	Alpha *ops.Variable
}

// NewPReLU makes a PReLU layer. Options: WithAlphaInitializer,
// WithAlphaRegularizer, WithSharedAxes.
func NewPReLU(opts ...Option) *PReLU {
	l := &PReLU{}
	l.init("PReLU", []string{"alpha_initializer", "alpha_regularizer", "shared_axes"}, opts)
	return l
}

// Build implements Layer.
func (l *PReLU) Build(in []ops.Shape) error {
	s := in[0]
	if len(s) < 2 {
		return fmt.Errorf("layers: PReLU %q: input of shape %v needs a batch axis and at least one more", l.name, s)
	}
	if err := checkSharedAxes(l.cfg.act.sharedAxes, len(s)); err != nil {
		return fmt.Errorf("layers: PReLU %q: %w", l.name, err)
	}
	shape := s[1:].Clone()
	for i := range shape {
		if slices.Contains(l.cfg.act.sharedAxes, i+1) {
			shape[i] = 1
		} else if shape[i] <= 0 {
			return fmt.Errorf("layers: PReLU %q: axis %d of input shape %v must be known (or shared)", l.name, i+1, s)
		}
	}
	ai := l.cfg.act.alphaInit
	if ai == nil {
		ai = Zeros()
	}
	l.Alpha = l.AddWeight("alpha", shape, ai, true, l.cfg.act.alphaReg)
	l.built = true
	return nil
}

// Call implements Layer: relu(x) - alpha*relu(-x), as Keras computes it.
func (l *PReLU) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	a := x.Trace().Read(l.Alpha)
	return ops.Sub(ops.Relu(x), ops.Mul(a, ops.Relu(ops.Neg(x))))
}

// GetConfig implements Layer.
func (l *PReLU) GetConfig() map[string]any {
	m := l.baseConfig()
	m["alpha_initializer"] = initName(l.cfg.act.alphaInit, "Zeros")
	m["alpha_regularizer"] = regConfig(l.cfg.act.alphaReg)
	m["alpha_constraint"] = constraintConfig(l.cfg.ml.constraints["alpha"]) // options_constraints.go
	if ax := l.cfg.act.sharedAxes; ax != nil {
		v := make([]any, len(ax))
		for i, a := range ax {
			v[i] = a
		}
		m["shared_axes"] = v
	} else {
		m["shared_axes"] = nil
	}
	return m
}
