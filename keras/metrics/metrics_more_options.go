package metrics

import (
	"fmt"
	"math"
)

// moreConfig holds the options of R2Score, F1Score, MeanIoU and
// CosineSimilarity.
type moreConfig struct {
	average          string // F1Score; "" is None
	classAggregation string // R2Score; "" is None
	numRegressors    int
	numClasses       int
	targetClassIDs   []int
	ignoreClass      *int
	sparseYTrue      bool
	sparseYPred      bool
	axis             int
}

var defaultMore = moreConfig{classAggregation: "uniform_average", sparseYTrue: true, sparseYPred: true, axis: -1}

// withMoreDefaults puts the defaults of moreConfig before opts.
func withMoreDefaults(opts []Option) []Option {
	return append([]Option{func(c *config) { c.more = defaultMore }}, opts...)
}

// Average sets how F1Score combines the classes: "micro", "macro",
// "weighted", or "" (Keras' None, the default: one score per class).
func Average(a string) Option { return func(c *config) { c.more.average = a; c.mark("average") } }

// ClassAggregation sets how R2Score combines several outputs:
// "uniform_average" (default), "variance_weighted_average" or "" (None:
// one score per output).
func ClassAggregation(a string) Option {
	return func(c *config) { c.more.classAggregation = a; c.mark("class_aggregation") }
}

// NumRegressors sets R2Score's number of independent regressors, for the
// adjusted R² (default 0: not adjusted).
func NumRegressors(n int) Option {
	return func(c *config) { c.more.numRegressors = n; c.mark("num_regressors") }
}

// NumClasses sets MeanIoU's number of classes (required).
func NumClasses(n int) Option {
	return func(c *config) { c.more.numClasses = n; c.mark("num_classes") }
}

// TargetClassIDs restricts MeanIoU's mean to these classes (default: all).
func TargetClassIDs(ids ...int) Option {
	return func(c *config) { c.more.targetClassIDs = append([]int(nil), ids...); c.mark("target_class_ids") }
}

// IgnoreClass makes MeanIoU skip labels of this class (default: none).
func IgnoreClass(id int) Option {
	return func(c *config) { c.more.ignoreClass = &id; c.mark("ignore_class") }
}

// SparseYTrue says whether MeanIoU's labels are class ids (true, the
// default) or one-hot / scores along the last axis.
func SparseYTrue(b bool) Option {
	return func(c *config) { c.more.sparseYTrue = b; c.mark("sparse_y_true") }
}

// SparseYPred says whether MeanIoU's predictions are class ids (true, the
// default) or scores along the last axis (taken by argmax).
func SparseYPred(b bool) Option {
	return func(c *config) { c.more.sparseYPred = b; c.mark("sparse_y_pred") }
}

// Axis sets the axis of CosineSimilarity and of MeanIoU's argmax; only the
// last axis (-1, the default) is supported.
func Axis(a int) Option { return func(c *config) { c.more.axis = a; c.mark("axis") } }

// moreConfigOptions appends the options of the keys of moreConfig found in
// a Keras config.
func moreConfigOptions(c map[string]any, opts []Option) ([]Option, error) {
	integer := func(key string, v any) (int, error) {
		x, ok := v.(float64)
		if i, isInt := v.(int); isInt {
			x, ok = float64(i), true
		}
		if !ok || x != math.Trunc(x) || math.Abs(x) > 1<<31 {
			return 0, fmt.Errorf("metrics: config key %s: %v (%T) is not an integer", key, v, v)
		}
		return int(x), nil
	}
	for _, key := range []string{"average", "class_aggregation"} {
		v, ok := c[key]
		if !ok {
			continue
		}
		s, isString := v.(string)
		if v != nil && !isString {
			return nil, fmt.Errorf("metrics: config key %s: %v (%T) is not a string", key, v, v)
		}
		if key == "average" {
			opts = append(opts, Average(s))
		} else {
			opts = append(opts, ClassAggregation(s))
		}
	}
	for _, key := range []string{"num_regressors", "num_classes", "ignore_class", "axis"} {
		v, ok := c[key]
		if !ok || v == nil {
			continue
		}
		n, err := integer(key, v)
		if err != nil {
			return nil, err
		}
		switch key {
		case "num_regressors":
			opts = append(opts, NumRegressors(n))
		case "num_classes":
			opts = append(opts, NumClasses(n))
		case "ignore_class":
			opts = append(opts, IgnoreClass(n))
		case "axis":
			if n != -1 { // the default; CategoricalCrossentropy's config has it too
				opts = append(opts, Axis(n))
			}
		}
	}
	if v, ok := c["target_class_ids"]; ok && v != nil {
		l, isList := v.([]any)
		if !isList {
			return nil, fmt.Errorf("metrics: config key target_class_ids: %v (%T) is not a list", v, v)
		}
		ids := make([]int, len(l))
		for i, e := range l {
			n, err := integer("target_class_ids", e)
			if err != nil {
				return nil, err
			}
			ids[i] = n
		}
		opts = append(opts, TargetClassIDs(ids...))
	}
	for _, key := range []string{"sparse_y_true", "sparse_y_pred"} {
		v, ok := c[key]
		if !ok || v == nil {
			continue
		}
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("metrics: config key %s: %v (%T) is not a bool", key, v, v)
		}
		if key == "sparse_y_true" {
			opts = append(opts, SparseYTrue(b))
		} else {
			opts = append(opts, SparseYPred(b))
		}
	}
	return opts, nil
}
