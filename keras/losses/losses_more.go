package losses

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// moreConfig holds the options of the losses of losses_more.go, hinge.go
// and focal.go.
type moreConfig struct {
	delta               float64
	alpha               float64
	gamma               float64
	applyClassBalancing bool
}

// Delta sets Huber's delta, where the loss turns from quadratic to linear
// (default 1).
func Delta(d float64) Option {
	return func(c *config) { c.more.delta = d; c.mark("delta") }
}

// Alpha sets the focal crossentropies' weighting factor (default 0.25).
func Alpha(a float64) Option {
	return func(c *config) { c.more.alpha = a; c.mark("alpha") }
}

// Gamma sets the focal crossentropies' focusing parameter (default 2).
func Gamma(g float64) Option {
	return func(c *config) { c.more.gamma = g; c.mark("gamma") }
}

// ApplyClassBalancing makes BinaryFocalCrossentropy weigh positive labels
// by alpha and negative ones by 1-alpha (default false).
func ApplyClassBalancing(b bool) Option {
	return func(c *config) { c.more.applyClassBalancing = b; c.mark("apply_class_balancing") }
}

// elementLoss is the shared part of the losses that reduce a per-element
// formula over the last axis.
type elementLoss struct {
	base
	per   func(yTrue, yPred ops.Tensor) ops.Tensor
	extra func() map[string]any
}

// PerExample implements [Loss]: the predictions' shape without the last
// axis.
func (l *elementLoss) PerExample(yTrue, yPred ops.Tensor) ops.Tensor {
	l.needRank(yTrue, yPred)
	return l.per(yTrue, yPred)
}

// Call implements [Loss].
func (l *elementLoss) Call(yTrue, yPred ops.Tensor) ops.Tensor {
	return Reduce(l.PerExample(yTrue, yPred), l.reduction)
}

// GetConfig implements [Loss].
func (l *elementLoss) GetConfig() map[string]any {
	c := l.baseConfig()
	if l.extra != nil {
		for k, v := range l.extra() {
			c[k] = v
		}
	}
	return c
}

// Huber is keras.losses.Huber: per element, 0.5*e² where |e| <= delta
// and delta*|e| - 0.5*delta² beyond, for e = y_pred - y_true; averaged
// over the last axis.
//
//	keras.losses.Huber(delta=1.5)
//	losses.NewHuber(losses.Delta(1.5))
type Huber struct {
	elementLoss
	delta float64
}

// NewHuber makes the loss. Options: Delta (default 1), Reduction, Name.
func NewHuber(opts ...Option) *Huber {
	b, c := newConfig("Huber", "huber_loss", []string{"delta"}, withDefault(opts, func(c *config) { c.more.delta = 1 }))
	if !(c.more.delta >= 0) || math.IsInf(c.more.delta, 0) {
		b.fail("delta %v must be a finite number >= 0", c.more.delta)
	}
	l := &Huber{delta: c.more.delta}
	d := float32(c.more.delta)
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.regressionLabels(yTrue, yPred)
		a := ops.Abs(ops.Sub(yPred, yTrue))
		q := ops.Clip(a, 0, d) // min(|e|, delta)
		// 0.5*q² + delta*(|e| - q): 0.5e² inside, delta*|e| - 0.5*delta² beyond
		return ops.Mean(ops.Add(ops.Scale(ops.Square(q), 0.5), ops.Scale(ops.Sub(a, q), d)), false, -1)
	}, extra: func() map[string]any { return map[string]any{"delta": l.delta} }}
	return l
}

// withDefault puts an option that sets a default before the user's.
func withDefault(opts []Option, def func(*config)) []Option {
	return append([]Option{def}, opts...)
}

// LogCosh is keras.losses.LogCosh: mean over the last axis of
// log(cosh(y_pred - y_true)), computed as x + softplus(-2x) - log 2.
//
//	keras.losses.LogCosh()
//	losses.NewLogCosh()
type LogCosh struct{ elementLoss }

// NewLogCosh makes the loss. Options: Reduction, Name.
func NewLogCosh(opts ...Option) *LogCosh {
	b, _ := newConfig("LogCosh", "log_cosh", nil, opts)
	l := &LogCosh{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.regressionLabels(yTrue, yPred)
		x := ops.Sub(yPred, yTrue)
		return ops.Mean(ops.AddScalar(ops.Add(x, ops.Log1pExp(ops.Scale(x, -2))), -float32(math.Ln2)), false, -1)
	}}
	return l
}

// KLDivergence is keras.losses.KLDivergence: sum over the last axis of
// y_true * log(y_true / y_pred), both clipped to [1e-7, 1].
//
//	keras.losses.KLDivergence()
//	losses.NewKLDivergence()
type KLDivergence struct{ elementLoss }

// NewKLDivergence makes the loss. Options: Reduction, Name.
func NewKLDivergence(opts ...Option) *KLDivergence {
	b, _ := newConfig("KLDivergence", "kl_divergence", nil, opts)
	l := &KLDivergence{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.matchLabels(yTrue, yPred)
		t := ops.Clip(yTrue, epsilon, 1)
		p := ops.Clip(yPred, epsilon, 1)
		return ops.Sum(ops.Mul(t, ops.Sub(ops.Log(t), ops.Log(p))), false, -1)
	}}
	return l
}

// Poisson is keras.losses.Poisson: mean over the last axis of
// y_pred - y_true * log(y_pred + 1e-7).
//
//	keras.losses.Poisson()
//	losses.NewPoisson()
type Poisson struct{ elementLoss }

// NewPoisson makes the loss. Options: Reduction, Name.
func NewPoisson(opts ...Option) *Poisson {
	b, _ := newConfig("Poisson", "poisson", nil, opts)
	l := &Poisson{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.matchLabels(yTrue, yPred)
		return ops.Mean(ops.Sub(yPred, ops.Mul(yTrue, ops.Log(ops.AddScalar(yPred, epsilon)))), false, -1)
	}}
	return l
}

// MeanSquaredLogarithmicError is keras.losses.MeanSquaredLogarithmicError:
// mean over the last axis of (log(max(y_pred, 1e-7) + 1) -
// log(max(y_true, 1e-7) + 1))².
//
//	keras.losses.MeanSquaredLogarithmicError()
//	losses.NewMeanSquaredLogarithmicError()
type MeanSquaredLogarithmicError struct{ elementLoss }

// NewMeanSquaredLogarithmicError makes the loss. Options: Reduction, Name.
func NewMeanSquaredLogarithmicError(opts ...Option) *MeanSquaredLogarithmicError {
	b, _ := newConfig("MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", nil, opts)
	l := &MeanSquaredLogarithmicError{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.regressionLabels(yTrue, yPred)
		lp := ops.Log(ops.AddScalar(ops.Clip(yPred, epsilon, math.MaxFloat32), 1))
		lt := ops.Log(ops.AddScalar(ops.Clip(yTrue, epsilon, math.MaxFloat32), 1))
		return ops.Mean(ops.Square(ops.Sub(lp, lt)), false, -1)
	}}
	return l
}

// MeanAbsolutePercentageError is keras.losses.MeanAbsolutePercentageError:
// 100 times the mean over the last axis of
// |(y_true - y_pred) / max(|y_true|, 1e-7)|.
//
//	keras.losses.MeanAbsolutePercentageError()
//	losses.NewMeanAbsolutePercentageError()
type MeanAbsolutePercentageError struct{ elementLoss }

// NewMeanAbsolutePercentageError makes the loss. Options: Reduction, Name.
func NewMeanAbsolutePercentageError(opts ...Option) *MeanAbsolutePercentageError {
	b, _ := newConfig("MeanAbsolutePercentageError", "mean_absolute_percentage_error", nil, opts)
	l := &MeanAbsolutePercentageError{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.regressionLabels(yTrue, yPred)
		d := ops.Abs(ops.Div(ops.Sub(yTrue, yPred), ops.Clip(ops.Abs(yTrue), epsilon, math.MaxFloat32)))
		return ops.Scale(ops.Mean(d, false, -1), 100)
	}}
	return l
}

// CosineSimilarity is keras.losses.CosineSimilarity: minus the cosine of
// the angle between y_true and y_pred along Axis (default -1), each
// l2-normalised as x * min(1/‖x‖, 1e7).
//
//	keras.losses.CosineSimilarity(axis=-1)
//	losses.NewCosineSimilarity(losses.Axis(-1))
type CosineSimilarity struct {
	elementLoss
	axis int
}

// NewCosineSimilarity makes the loss. Options: Axis, Reduction, Name.
func NewCosineSimilarity(opts ...Option) *CosineSimilarity {
	b, c := newConfig("CosineSimilarity", "cosine_similarity", []string{"axis"}, opts)
	l := &CosineSimilarity{axis: c.axis}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.regressionLabels(yTrue, yPred)
		if !yTrue.Shape().Equal(yPred.Shape()) {
			yTrue = ops.BroadcastTo(yTrue, yPred.Shape())
		}
		ax := l.normAxis(l.axis, yPred.Shape())
		return ops.Neg(ops.Sum(ops.Mul(l2Normalize(yTrue, ax), l2Normalize(yPred, ax)), false, ax))
	}, extra: func() map[string]any { return map[string]any{"axis": l.axis} }}
	return l
}

// l2Normalize is x * rsqrt(max(sum(x², axis), 1e-14)), Keras'
// x * min(rsqrt(sum(x²)), 1/epsilon) without an infinite gradient at 0.
func l2Normalize(x ops.Tensor, axis int) ops.Tensor {
	ss := ops.Sum(ops.Square(x), true, axis)
	return ops.Mul(x, ops.Rsqrt(ops.Clip(ss, epsilon*epsilon, math.MaxFloat32)))
}

func init() {
	for name, f := range map[string]func(...Option) Loss{
		"huber":                          func(o ...Option) Loss { return NewHuber(o...) },
		"log_cosh":                       func(o ...Option) Loss { return NewLogCosh(o...) },
		"kl_divergence":                  func(o ...Option) Loss { return NewKLDivergence(o...) },
		"poisson":                        func(o ...Option) Loss { return NewPoisson(o...) },
		"mean_squared_logarithmic_error": func(o ...Option) Loss { return NewMeanSquaredLogarithmicError(o...) },
		"mean_absolute_percentage_error": func(o ...Option) Loss { return NewMeanAbsolutePercentageError(o...) },
		"cosine_similarity":              func(o ...Option) Loss { return NewCosineSimilarity(o...) },
		"hinge":                          func(o ...Option) Loss { return NewHinge(o...) },
		"squared_hinge":                  func(o ...Option) Loss { return NewSquaredHinge(o...) },
		"categorical_hinge":              func(o ...Option) Loss { return NewCategoricalHinge(o...) },
		"categorical_focal_crossentropy": func(o ...Option) Loss { return NewCategoricalFocalCrossentropy(o...) },
		"binary_focal_crossentropy":      func(o ...Option) Loss { return NewBinaryFocalCrossentropy(o...) },
	} {
		ctors[name] = f
	}
	for alias, name := range map[string]string{
		"Huber": "huber", "huber_loss": "huber", "LogCosh": "log_cosh", "logcosh": "log_cosh",
		"KLDivergence": "kl_divergence", "kld": "kl_divergence", "KLD": "kl_divergence", "kullback_leibler_divergence": "kl_divergence",
		"Poisson":                     "poisson",
		"MeanSquaredLogarithmicError": "mean_squared_logarithmic_error", "msle": "mean_squared_logarithmic_error", "MSLE": "mean_squared_logarithmic_error",
		"MeanAbsolutePercentageError": "mean_absolute_percentage_error", "mape": "mean_absolute_percentage_error", "MAPE": "mean_absolute_percentage_error",
		"CosineSimilarity": "cosine_similarity", "Hinge": "hinge", "SquaredHinge": "squared_hinge", "CategoricalHinge": "categorical_hinge",
		"CategoricalFocalCrossentropy": "categorical_focal_crossentropy", "BinaryFocalCrossentropy": "binary_focal_crossentropy",
	} {
		aliases[alias] = name
	}
}

// ConfigOptions returns the options of a loss's Keras config, the map
// get_config() returns (numbers may be float64, as decoded from JSON):
// name, reduction, from_logits, label_smoothing, axis, delta, alpha, gamma
// and apply_class_balancing. Other keys (dtype) are ignored. With
// [Get] it rebuilds a loss from a saved configuration.
func ConfigOptions(cfg map[string]any) ([]Option, error) {
	var opts []Option
	num := func(k string) (float64, bool, error) {
		v, ok := cfg[k]
		if !ok || v == nil {
			return 0, false, nil
		}
		switch x := v.(type) {
		case float64:
			return x, true, nil
		case float32:
			return float64(x), true, nil
		case int:
			return float64(x), true, nil
		case int64:
			return float64(x), true, nil
		}
		return 0, false, fmt.Errorf("losses: config %s: want a number, got %v", k, v)
	}
	boolean := func(k string) (bool, bool, error) {
		v, ok := cfg[k]
		if !ok || v == nil {
			return false, false, nil
		}
		b, isBool := v.(bool)
		if !isBool {
			return false, false, fmt.Errorf("losses: config %s: want a boolean, got %v", k, v)
		}
		return b, true, nil
	}
	if v, ok := cfg["name"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr {
			return nil, fmt.Errorf("losses: config name: want a string, got %v", v)
		}
		opts = append(opts, Name(s))
	}
	if v, ok := cfg["reduction"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr {
			return nil, fmt.Errorf("losses: config reduction: want a string, got %v", v)
		}
		opts = append(opts, Reduction(ReductionKind(s)))
	}
	for _, k := range []string{"from_logits", "apply_class_balancing"} {
		b, ok, err := boolean(k)
		if err != nil {
			return nil, err
		}
		if ok {
			if k == "from_logits" {
				opts = append(opts, FromLogits(b))
			} else {
				opts = append(opts, ApplyClassBalancing(b))
			}
		}
	}
	for _, k := range []string{"label_smoothing", "axis", "delta", "alpha", "gamma"} {
		x, ok, err := num(k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		switch k {
		case "label_smoothing":
			opts = append(opts, LabelSmoothing(x))
		case "axis":
			if x != math.Trunc(x) || math.Abs(x) > 1<<20 {
				return nil, fmt.Errorf("losses: config axis: want an integer, got %v", x)
			}
			opts = append(opts, Axis(int(x)))
		case "delta":
			opts = append(opts, Delta(x))
		case "alpha":
			opts = append(opts, Alpha(x))
		case "gamma":
			opts = append(opts, Gamma(x))
		}
	}
	return opts, nil
}
