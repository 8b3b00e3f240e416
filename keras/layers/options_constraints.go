package layers

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// Weight constraints, the regularizers of normalization scales and offsets,
// and activity regularization: Keras arguments that every layer with such a
// weight takes. The options record, by weight name, what [Base.AddWeight]
// attaches to the weight it makes (so a layer needs no code of its own for
// them), and the Keras key that set it, for GetConfig.

// weightOptionKeys are the keys each class of this package takes besides
// its own: the constraints and regularizers of its weights. The classes of
// issue 31 list theirs in their own arguments.
var weightOptionKeys = map[string][]string{
	"Dense":              {"kernel_constraint", "bias_constraint"},
	"Conv1D":             {"kernel_constraint", "bias_constraint"},
	"Conv2D":             {"kernel_constraint", "bias_constraint"},
	"Conv2DTranspose":    {"kernel_constraint", "bias_constraint"},
	"DepthwiseConv2D":    {"depthwise_constraint", "bias_constraint"},
	"SeparableConv2D":    {"depthwise_constraint", "pointwise_constraint", "bias_constraint"},
	"Embedding":          {"embeddings_constraint"},
	"BatchNormalization": {"gamma_constraint", "beta_constraint", "gamma_regularizer", "beta_regularizer"},
	"LayerNormalization": {"gamma_constraint", "beta_constraint", "gamma_regularizer", "beta_regularizer"},
	"PReLU":              {"alpha_constraint"},
	// The recurrent layers share their config with their cell, which
	// makes the weights.
	"LSTM":          recurrentConstraintKeys,
	"GRU":           recurrentConstraintKeys,
	"SimpleRNN":     recurrentConstraintKeys,
	"LSTMCell":      recurrentConstraintKeys,
	"GRUCell":       recurrentConstraintKeys,
	"SimpleRNNCell": recurrentConstraintKeys,
}

var recurrentConstraintKeys = []string{"kernel_constraint", "recurrent_constraint", "bias_constraint"}

// weightOfKey is the weight each key's constraint or regularizer goes to.
var weightOfKey = map[string]string{
	"kernel_constraint":     "kernel",
	"bias_constraint":       "bias",
	"recurrent_constraint":  "recurrent_kernel",
	"alpha_constraint":      "alpha",
	"depthwise_constraint":  "depthwise_kernel",
	"pointwise_constraint":  "pointwise_kernel",
	"embeddings_constraint": "embeddings",
	"gamma_constraint":      "gamma",
	"beta_constraint":       "beta",
	"gamma_regularizer":     "gamma",
	"beta_regularizer":      "beta",
}

// withAllowedWeightOptions is the allowed keys of class with those of
// weightOptionKeys.
func withAllowedWeightOptions(class string, allowed []string) []string {
	if extra := weightOptionKeys[class]; len(extra) > 0 {
		return append(slices.Clip(allowed), extra...)
	}
	return allowed
}

func weightConstraint(key string, c Constraint) Option {
	return func(cfg *config) {
		if cfg.ml.constraints == nil {
			cfg.ml.constraints = map[string]Constraint{}
		}
		cfg.ml.constraints[weightOfKey[key]] = c
		cfg.mark(key)
	}
}

func weightRegularizer(key string, r Regularizer) Option {
	return func(cfg *config) {
		if cfg.ml.regs == nil {
			cfg.ml.regs = map[string]Regularizer{}
		}
		cfg.ml.regs[weightOfKey[key]] = r
		cfg.mark(key)
	}
}

// WithKernelConstraint projects the kernel after every optimizer update
// (Keras' kernel_constraint=): Dense, the convolutions, the recurrent
// layers.
func WithKernelConstraint(c Constraint) Option { return weightConstraint("kernel_constraint", c) }

// WithBiasConstraint projects the bias after every optimizer update.
func WithBiasConstraint(c Constraint) Option { return weightConstraint("bias_constraint", c) }

// WithRecurrentConstraint projects a recurrent layer's recurrent kernel
// after every optimizer update.
func WithRecurrentConstraint(c Constraint) Option {
	return weightConstraint("recurrent_constraint", c)
}

// WithAlphaConstraint projects PReLU's slopes after every optimizer update.
func WithAlphaConstraint(c Constraint) Option { return weightConstraint("alpha_constraint", c) }

// WithDepthwiseConstraint projects DepthwiseConv2D's and SeparableConv2D's
// depthwise kernel after every optimizer update.
func WithDepthwiseConstraint(c Constraint) Option {
	return weightConstraint("depthwise_constraint", c)
}

// WithPointwiseConstraint projects SeparableConv2D's 1x1 kernel after
// every optimizer update.
func WithPointwiseConstraint(c Constraint) Option {
	return weightConstraint("pointwise_constraint", c)
}

// WithEmbeddingsConstraint projects Embedding's table after every
// optimizer update.
func WithEmbeddingsConstraint(c Constraint) Option {
	return weightConstraint("embeddings_constraint", c)
}

// WithGammaConstraint projects a normalization's scale gamma after every
// optimizer update.
func WithGammaConstraint(c Constraint) Option { return weightConstraint("gamma_constraint", c) }

// WithBetaConstraint projects a normalization's offset beta after every
// optimizer update.
func WithBetaConstraint(c Constraint) Option { return weightConstraint("beta_constraint", c) }

// WithGammaRegularizer adds a penalty on a normalization's scale gamma to
// the model's loss.
func WithGammaRegularizer(r Regularizer) Option { return weightRegularizer("gamma_regularizer", r) }

// WithBetaRegularizer adds a penalty on a normalization's offset beta to
// the model's loss.
func WithBetaRegularizer(r Regularizer) Option { return weightRegularizer("beta_regularizer", r) }

// WithActivityRegularizer adds a penalty on the layer's output to the
// model's loss at every call, divided by the batch size, as Keras'
// activity_regularizer= (which every layer takes).
func WithActivityRegularizer(r Regularizer) Option {
	return func(c *config) { c.ml.activity = r; c.mark("activity_regularizer") }
}

// attachWeightOptions attaches to v, the weight name that AddWeight makes,
// the constraint the options give it, and returns its regularizer: reg,
// or when the layer gives none the one the options give (gamma, beta). A
// constraint that does not fit the weight's shape panics with an
// *ops.Error, as AddWeight's misuse does.
func (b *Base) attachWeightOptions(name string, v *ops.Variable, reg Regularizer) Regularizer {
	if b.cfg == nil {
		return reg
	}
	if c := b.cfg.ml.constraints[name]; c != nil {
		if err := c.check(v.Shape()); err != nil {
			panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", b.name, b.class), Msg: fmt.Sprintf("%s of weight %q: %v", c.Name(), name, err)})
		}
		ops.SetConstraint(v, c)
	}
	if reg == nil {
		reg = b.cfg.ml.regs[name]
	}
	return reg
}

// weightOptionsConfig adds to a layer's config the keys the options set.
func (b *Base) weightOptionsConfig(m map[string]any) {
	if b.cfg == nil {
		return
	}
	for key, w := range weightOfKey {
		if !b.cfg.set[key] {
			continue
		}
		if strings.HasSuffix(key, "_constraint") {
			m[key] = constraintConfig(b.cfg.ml.constraints[w])
		} else {
			m[key] = regConfig(b.cfg.ml.regs[w])
		}
	}
	if b.cfg.ml.activity != nil {
		m["activity_regularizer"] = regConfig(b.cfg.ml.activity)
	}
}

// activityRegularizer is the activity regularizer of l, if it has one.
func activityRegularizer(l Layer) Regularizer {
	h, ok := l.(baseHolder)
	if !ok {
		return nil
	}
	b := h.layerBase()
	if b.cfg == nil {
		return nil
	}
	return b.cfg.ml.activity
}

// withActivityLoss adds l's activity regularization of its output y to
// y's trace (ops.AddLoss, which the model adds to its loss), divided by
// the batch size as Keras 3 does, and returns y.
func withActivityLoss(l Layer, y ops.Tensor) ops.Tensor {
	r := activityRegularizer(l)
	if r == nil || y.IsNone() {
		return y
	}
	p := r.Penalty(y)
	if s := y.Shape(); len(s) > 0 && s[0] > 0 {
		p = ops.Scale(p, 1/float32(s[0]))
	}
	ops.AddLoss(p)
	return y
}

// GetConstraint makes a constraint from Keras' class name (MaxNorm,
// NonNeg, UnitNorm, MinMaxNorm or Constraint, the identity; snake case
// too) and config, as keras.constraints.get; numbers may be float64, as
// decoded from JSON.
func GetConstraint(class string, cfg map[string]any) (Constraint, error) {
	num := func(key string, def float64) (float64, error) {
		v, ok := cfg[key]
		if !ok || v == nil {
			return def, nil
		}
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("%s: %v is not a finite number", key, x)
			}
			return x, nil
		case int:
			return float64(x), nil
		}
		return 0, fmt.Errorf("%s: want a number, got %v", key, v)
	}
	axes := func() (normAxes, error) {
		v, ok := cfg["axis"]
		if !ok {
			return normAxes{axes: []int{0}}, nil
		}
		one := func(x any) (int, bool) {
			switch n := x.(type) {
			case float64:
				if n == math.Trunc(n) && math.Abs(n) < 1<<31 {
					return int(n), true
				}
			case int:
				return n, true
			}
			return 0, false
		}
		switch x := v.(type) {
		case nil:
			return normAxes{all: true}, nil
		case []any:
			if len(x) > 64 {
				return normAxes{}, fmt.Errorf("axis: %d axes", len(x))
			}
			a := normAxes{listed: true}
			for _, e := range x {
				n, ok := one(e)
				if !ok {
					return normAxes{}, fmt.Errorf("axis: want integers, got %v", v)
				}
				a.axes = append(a.axes, n)
			}
			return a, nil
		case []int:
			return normAxes{axes: slices.Clone(x), listed: true}, nil
		}
		n, ok := one(v)
		if !ok {
			return normAxes{}, fmt.Errorf("axis: want an integer or a list, got %v", v)
		}
		return normAxes{axes: []int{n}}, nil
	}
	var err error
	get := func(key string, def float64) float64 {
		x, e := num(key, def)
		if err == nil {
			err = e
		}
		return x
	}
	var c Constraint
	switch strings.ReplaceAll(strings.ToLower(class), "_", "") {
	case "maxnorm":
		a, e := axes()
		err = e
		c = maxNorm{maxValue: get("max_value", 2), axes: a}
	case "nonneg":
		c = nonNeg{}
	case "unitnorm":
		a, e := axes()
		err = e
		c = unitNorm{axes: a}
	case "minmaxnorm":
		a, e := axes()
		err = e
		c = minMaxNorm{minValue: get("min_value", 0), maxValue: get("max_value", 1), rate: get("rate", 1), axes: a}
	case "constraint":
		c = identityConstraint{}
	default:
		return nil, fmt.Errorf("unknown constraint %q (known: MaxNorm, NonNeg, UnitNorm, MinMaxNorm)", class)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", class, err)
	}
	return c, nil
}

// identityConstraint is keras.constraints.Constraint, the base class,
// which returns the weight unchanged.
type identityConstraint struct{}

func (identityConstraint) Project([]float32, ops.Shape) {}
func (identityConstraint) Name() string                 { return "Constraint" }
func (identityConstraint) check(ops.Shape) error        { return nil }
func (identityConstraint) Config() map[string]any       { return map[string]any{} }
