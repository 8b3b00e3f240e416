package metrics

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// rowMetric makes the labelMetric of a per-row formula f over the last
// axis of labels and predictions of the same shape (rank 0 and 1 are one
// row, as Keras' mean over axis -1).
func rowMetric(m *labelMetric, kind string, c config, f func(t, p []float32) float64, extra map[string]any) {
	m.init(kind, c, sameShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		r := 1
		if len(ps) > 0 {
			r = ps[len(ps)-1]
		}
		if r == 0 {
			return 0, 0, 0, nil
		}
		n := len(p) / r
		var s float64
		for i := 0; i < n; i++ {
			s += f(t[i*r:(i+1)*r], p[i*r:(i+1)*r])
		}
		ex := 1
		if len(ps) > 1 {
			ex = ps[0]
		}
		return s, n, ex, nil
	}, extra)
}

// MeanSquaredLogarithmicError is keras.metrics.MeanSquaredLogarithmicError,
// the mean of the loss of the same name.
//
//	keras.metrics.MeanSquaredLogarithmicError()
//	metrics.NewMeanSquaredLogarithmicError()
type MeanSquaredLogarithmicError struct{ labelMetric }

// NewMeanSquaredLogarithmicError makes the metric, named
// "mean_squared_logarithmic_error". Options: Name.
func NewMeanSquaredLogarithmicError(opts ...Option) *MeanSquaredLogarithmicError {
	m := &MeanSquaredLogarithmicError{}
	rowMetric(&m.labelMetric, "MeanSquaredLogarithmicError", newConfig("MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", nil, opts),
		func(t, p []float32) float64 {
			var s float64
			for i := range p {
				d := math.Log(math.Max(float64(p[i]), 1e-7)+1) - math.Log(math.Max(float64(t[i]), 1e-7)+1)
				s += d * d
			}
			return s / float64(len(p))
		}, nil)
	return m
}

// MeanAbsolutePercentageError is keras.metrics.MeanAbsolutePercentageError,
// the mean of the loss of the same name.
//
//	keras.metrics.MeanAbsolutePercentageError()
//	metrics.NewMeanAbsolutePercentageError()
type MeanAbsolutePercentageError struct{ labelMetric }

// NewMeanAbsolutePercentageError makes the metric, named
// "mean_absolute_percentage_error". Options: Name.
func NewMeanAbsolutePercentageError(opts ...Option) *MeanAbsolutePercentageError {
	m := &MeanAbsolutePercentageError{}
	rowMetric(&m.labelMetric, "MeanAbsolutePercentageError", newConfig("MeanAbsolutePercentageError", "mean_absolute_percentage_error", nil, opts),
		func(t, p []float32) float64 {
			var s float64
			for i := range p {
				s += math.Abs((float64(t[i]) - float64(p[i])) / math.Max(math.Abs(float64(t[i])), 1e-7))
			}
			return 100 * s / float64(len(p))
		}, nil)
	return m
}

// LogCoshError is keras.metrics.LogCoshError, the mean of
// log(cosh(y_pred - y_true)).
//
//	keras.metrics.LogCoshError()
//	metrics.NewLogCoshError()
type LogCoshError struct{ labelMetric }

// NewLogCoshError makes the metric, named "logcosh". Options: Name.
func NewLogCoshError(opts ...Option) *LogCoshError {
	m := &LogCoshError{}
	rowMetric(&m.labelMetric, "LogCoshError", newConfig("LogCoshError", "logcosh", nil, opts), func(t, p []float32) float64 {
		var s float64
		for i := range p {
			x := float64(p[i]) - float64(t[i])
			s += x + softplus(-2*x) - math.Ln2
		}
		return s / float64(len(p))
	}, nil)
	return m
}

func softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

// Poisson is keras.metrics.Poisson, the mean of
// y_pred - y_true*log(y_pred + 1e-7).
//
//	keras.metrics.Poisson()
//	metrics.NewPoisson()
type Poisson struct{ labelMetric }

// NewPoisson makes the metric, named "poisson". Options: Name.
func NewPoisson(opts ...Option) *Poisson {
	m := &Poisson{}
	rowMetric(&m.labelMetric, "Poisson", newConfig("Poisson", "poisson", nil, opts), func(t, p []float32) float64 {
		var s float64
		for i := range p {
			s += float64(p[i]) - float64(t[i])*math.Log(float64(p[i])+1e-7)
		}
		return s / float64(len(p))
	}, nil)
	return m
}

// KLDivergence is keras.metrics.KLDivergence, the mean over examples of
// sum(y_true * log(y_true / y_pred)) with both clipped to [1e-7, 1].
//
//	keras.metrics.KLDivergence()
//	metrics.NewKLDivergence()
type KLDivergence struct{ labelMetric }

// NewKLDivergence makes the metric, named "kl_divergence". Options: Name.
func NewKLDivergence(opts ...Option) *KLDivergence {
	m := &KLDivergence{}
	rowMetric(&m.labelMetric, "KLDivergence", newConfig("KLDivergence", "kl_divergence", nil, opts), func(t, p []float32) float64 {
		var s float64
		for i := range p {
			tv := math.Min(math.Max(float64(t[i]), 1e-7), 1)
			pv := math.Min(math.Max(float64(p[i]), 1e-7), 1)
			s += tv * math.Log(tv/pv)
		}
		return s
	}, nil)
	return m
}

// hingeLabel converts labels that are all 0 or 1 to -1 and 1, as Keras'
// hinge metrics do.
func hingeLabel(t []float32) func(i int) float64 {
	binary := true
	for _, v := range t {
		binary = binary && (v == 0 || v == 1)
	}
	if binary {
		return func(i int) float64 { return 2*float64(t[i]) - 1 }
	}
	return func(i int) float64 { return float64(t[i]) }
}

// Hinge is keras.metrics.Hinge, the mean of max(1 - y_true*y_pred, 0)
// (labels all 0 or 1 are taken as -1 and 1).
//
//	keras.metrics.Hinge()
//	metrics.NewHinge()
type Hinge struct{ labelMetric }

// NewHinge makes the metric, named "hinge". Options: Name.
func NewHinge(opts ...Option) *Hinge {
	m := &Hinge{}
	rowMetric(&m.labelMetric, "Hinge", newConfig("Hinge", "hinge", nil, opts), func(t, p []float32) float64 {
		y := hingeLabel(t)
		var s float64
		for i := range p {
			s += math.Max(1-y(i)*float64(p[i]), 0)
		}
		return s / float64(len(p))
	}, nil)
	return m
}

// SquaredHinge is keras.metrics.SquaredHinge, the mean of
// max(1 - y_true*y_pred, 0)².
//
//	keras.metrics.SquaredHinge()
//	metrics.NewSquaredHinge()
type SquaredHinge struct{ labelMetric }

// NewSquaredHinge makes the metric, named "squared_hinge". Options: Name.
func NewSquaredHinge(opts ...Option) *SquaredHinge {
	m := &SquaredHinge{}
	rowMetric(&m.labelMetric, "SquaredHinge", newConfig("SquaredHinge", "squared_hinge", nil, opts), func(t, p []float32) float64 {
		y := hingeLabel(t)
		var s float64
		for i := range p {
			h := math.Max(1-y(i)*float64(p[i]), 0)
			s += h * h
		}
		return s / float64(len(p))
	}, nil)
	return m
}

// CategoricalHinge is keras.metrics.CategoricalHinge, the mean over
// examples of max(max((1-y_true)*y_pred) - sum(y_true*y_pred) + 1, 0).
//
//	keras.metrics.CategoricalHinge()
//	metrics.NewCategoricalHinge()
type CategoricalHinge struct{ labelMetric }

// NewCategoricalHinge makes the metric, named "categorical_hinge".
// Options: Name.
func NewCategoricalHinge(opts ...Option) *CategoricalHinge {
	m := &CategoricalHinge{}
	rowMetric(&m.labelMetric, "CategoricalHinge", newConfig("CategoricalHinge", "categorical_hinge", nil, opts), func(t, p []float32) float64 {
		pos, neg := 0.0, math.Inf(-1)
		for i := range p {
			pos += float64(t[i]) * float64(p[i])
			neg = math.Max(neg, (1-float64(t[i]))*float64(p[i]))
		}
		return math.Max(neg-pos+1, 0)
	}, nil)
	return m
}

// CosineSimilarity is keras.metrics.CosineSimilarity, the mean over
// examples of the cosine of the angle between y_true and y_pred (each
// l2-normalised as x * min(1/‖x‖, 1e7)) along the last axis.
//
//	keras.metrics.CosineSimilarity(axis=-1)
//	metrics.NewCosineSimilarity()
type CosineSimilarity struct{ labelMetric }

// NewCosineSimilarity makes the metric, named "cosine_similarity".
// Options: Axis (-1 only), Name.
func NewCosineSimilarity(opts ...Option) *CosineSimilarity {
	c := newConfig("CosineSimilarity", "cosine_similarity", []string{"axis"}, withMoreDefaults(opts))
	if c.more.axis != -1 {
		fail("CosineSimilarity", "axis %d: only the last axis (-1) is supported", c.more.axis)
	}
	m := &CosineSimilarity{}
	rowMetric(&m.labelMetric, "CosineSimilarity", c, func(t, p []float32) float64 {
		var tt, pp, tp float64
		for i := range p {
			tt += float64(t[i]) * float64(t[i])
			pp += float64(p[i]) * float64(p[i])
			tp += float64(t[i]) * float64(p[i])
		}
		inv := func(s float64) float64 { return math.Min(1/math.Sqrt(s), 1e7) }
		return tp * inv(tt) * inv(pp)
	}, map[string]any{"axis": -1})
	return m
}

// RootMeanSquaredError is keras.metrics.RootMeanSquaredError: the square
// root of the mean of (y_pred - y_true)² over every element seen.
//
//	keras.metrics.RootMeanSquaredError()
//	metrics.NewRootMeanSquaredError()
type RootMeanSquaredError struct{ sumsMetric }

// NewRootMeanSquaredError makes the metric, named
// "root_mean_squared_error". Options: Name.
func NewRootMeanSquaredError(opts ...Option) *RootMeanSquaredError {
	c := newConfig("RootMeanSquaredError", "root_mean_squared_error", nil, opts)
	return &RootMeanSquaredError{sumsMetric{kind: "RootMeanSquaredError", name: c.name, state: make([]float64, 2), check: sameShape,
		accumulate: func(st []float64, t, p []float32, _, _ ops.Shape, w []float32) ([]float64, error) {
			wt := weightOf(w, len(p))
			for i := range p {
				d := float64(p[i]) - float64(t[i])
				st[0] += wt(i) * d * d
				st[1] += wt(i)
			}
			return st, nil
		},
		results: func(st []float64) []float64 {
			if len(st) != 2 {
				return nil
			}
			return []float64{math.Sqrt(divNoNaN(st[0], st[1]))}
		}}}
}

func init() {
	for name, f := range map[string]func(...Option) LabelMetric{
		"mean_squared_logarithmic_error": func(o ...Option) LabelMetric { return NewMeanSquaredLogarithmicError(o...) },
		"mean_absolute_percentage_error": func(o ...Option) LabelMetric { return NewMeanAbsolutePercentageError(o...) },
		"logcosh":                        func(o ...Option) LabelMetric { return NewLogCoshError(o...) },
		"poisson":                        func(o ...Option) LabelMetric { return NewPoisson(o...) },
		"kl_divergence":                  func(o ...Option) LabelMetric { return NewKLDivergence(o...) },
		"hinge":                          func(o ...Option) LabelMetric { return NewHinge(o...) },
		"squared_hinge":                  func(o ...Option) LabelMetric { return NewSquaredHinge(o...) },
		"categorical_hinge":              func(o ...Option) LabelMetric { return NewCategoricalHinge(o...) },
		"cosine_similarity":              func(o ...Option) LabelMetric { return NewCosineSimilarity(o...) },
		"root_mean_squared_error":        func(o ...Option) LabelMetric { return NewRootMeanSquaredError(o...) },
		"r2_score":                       func(o ...Option) LabelMetric { return NewR2Score(o...) },
		"f1_score":                       func(o ...Option) LabelMetric { return NewF1Score(o...) },
		"mean_io_u":                      func(o ...Option) LabelMetric { return NewMeanIoU(o...) },
	} {
		ctors[name] = f
	}
	for alias, name := range map[string]string{
		"MeanSquaredLogarithmicError": "mean_squared_logarithmic_error", "msle": "mean_squared_logarithmic_error",
		"MeanAbsolutePercentageError": "mean_absolute_percentage_error", "mape": "mean_absolute_percentage_error",
		"LogCoshError": "logcosh", "Poisson": "poisson", "KLDivergence": "kl_divergence", "kld": "kl_divergence",
		"Hinge": "hinge", "SquaredHinge": "squared_hinge", "CategoricalHinge": "categorical_hinge",
		"CosineSimilarity": "cosine_similarity", "RootMeanSquaredError": "root_mean_squared_error",
		"R2Score": "r2_score", "F1Score": "f1_score", "MeanIoU": "mean_io_u",
	} {
		aliases[alias] = name
	}
}
