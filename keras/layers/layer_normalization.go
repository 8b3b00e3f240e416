package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// LayerNormalization is keras.layers.LayerNormalization: each example is
// normalised over axis, y = (x - mean) / sqrt(var + epsilon) * gamma + beta,
// with var the biased variance; gamma and beta have the size of that axis.
type LayerNormalization struct {
	Base
	axis          int
	epsilon       float64
	center, scale bool
	Gamma, Beta   *ops.Variable
}

// NewLayerNormalization makes a LayerNormalization layer. Options:
// WithAxis (default -1; not the batch axis), WithEpsilon (default 1e-3),
// WithCenter and WithScale (default true: add beta, multiply by gamma),
// WithName.
func NewLayerNormalization(opts ...Option) *LayerNormalization {
	l := &LayerNormalization{axis: -1, epsilon: 1e-3, center: true, scale: true}
	l.init("LayerNormalization", []string{"axis", "epsilon", "center", "scale"}, opts)
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
	if !(l.epsilon > 0) && l.err == nil {
		l.err = fmt.Errorf("layers: LayerNormalization %q: epsilon must be positive, got %v", l.name, l.epsilon)
	}
	return l
}

// normAxis returns the axis as an index of a rank-r input, or an error.
func (l *LayerNormalization) normAxis(r int) (int, error) {
	a := l.axis
	if a < 0 {
		a += r
	}
	if a <= 0 || a >= r {
		return 0, fmt.Errorf("axis %d must name a non-batch axis of the rank-%d input", l.axis, r)
	}
	return a, nil
}

// Build implements Layer.
func (l *LayerNormalization) Build(in []ops.Shape) error {
	if len(in) != 1 {
		return fmt.Errorf("needs 1 input, got %d", len(in))
	}
	a, err := l.normAxis(len(in[0]))
	if err != nil {
		return err
	}
	d := in[0][a]
	if d <= 0 {
		return fmt.Errorf("dimension %d of %v must be known", a, in[0])
	}
	if l.scale {
		l.Gamma = l.AddWeight("gamma", ops.Shape{d}, Ones(), true, nil)
	}
	if l.center {
		l.Beta = l.AddWeight("beta", ops.Shape{d}, Zeros(), true, nil)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *LayerNormalization) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	s := x.Shape()
	a, err := l.normAxis(len(s))
	if err != nil {
		panic(&ops.Error{Op: "LayerNormalization " + l.name, Msg: err.Error()})
	}
	mean := ops.Mean(x, true, a)
	xc := ops.Sub(x, mean)
	variance := ops.Mean(ops.Square(xc), true, a)
	y := ops.Div(xc, ops.Sqrt(ops.AddScalar(variance, float32(l.epsilon))))
	// gamma and beta, of shape (d,), broadcast along axis a.
	ws := make(ops.Shape, len(s)-a)
	for i := range ws {
		ws[i] = 1
	}
	ws[0] = s[a]
	tr := x.Trace()
	if l.Gamma != nil {
		y = ops.Mul(y, ops.Reshape(tr.Read(l.Gamma), ws))
	}
	if l.Beta != nil {
		y = ops.Add(y, ops.Reshape(tr.Read(l.Beta), ws))
	}
	return y
}

// GetConfig implements Layer.
func (l *LayerNormalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = l.axis
	m["epsilon"] = l.epsilon
	m["center"] = l.center
	m["scale"] = l.scale
	m["rms_scaling"] = false
	m["beta_initializer"] = initName(nil, "Zeros")
	m["gamma_initializer"] = initName(nil, "Ones")
	m["beta_regularizer"] = regConfig(l.cfg.ml.regs["beta"])
	m["gamma_regularizer"] = regConfig(l.cfg.ml.regs["gamma"])
	return m
}
