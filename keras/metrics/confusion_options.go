package metrics

import (
	"fmt"
	"math"
)

// confusionConfig holds the options of the confusion-matrix and top-k
// metrics.
type confusionConfig struct {
	thresholds    []float64 // nil: the metric's default
	topK          int       // 0: none
	classID       int       // -1: none
	numThresholds int
	curve         string
	summation     string
	k             int
}

var defaultConfusion = confusionConfig{classID: -1, numThresholds: 200, curve: "ROC", summation: "interpolation", k: 5}

// Thresholds sets the thresholds of Precision, Recall, TruePositives,
// FalsePositives, TrueNegatives and FalseNegatives (each in [0, 1], default
// 0.5, or none with TopK), or the inner thresholds of AUC (which then
// ignores NumThresholds). A prediction above a threshold counts as
// positive. With several thresholds the metric keeps counts per threshold;
// its Result is the first threshold's and Results has them all.
func Thresholds(ts ...float64) Option {
	return func(c *config) { c.thresholds = append([]float64{}, ts...); c.mark("thresholds") }
}

// TopK makes Precision and Recall count, in each row of the last axis,
// only the k highest predictions (the first on ties) as candidates for
// positive, as Keras' top_k (default 0: every prediction).
func TopK(k int) Option {
	return func(c *config) { c.topK = k; c.mark("top_k") }
}

// ClassID makes Precision and Recall look only at class id (column id of
// the last axis), as Keras' class_id (default -1: every element).
func ClassID(id int) Option {
	return func(c *config) { c.classID = id; c.mark("class_id") }
}

// NumThresholds sets the number of thresholds of AUC, evenly spaced over
// [0, 1] with the ends moved out by 1e-7 (default 200, at least 2).
func NumThresholds(n int) Option {
	return func(c *config) { c.numThresholds = n; c.mark("num_thresholds") }
}

// Curve sets AUC's curve: "ROC" (default) or "PR".
func Curve(curve string) Option {
	return func(c *config) { c.curve = curve; c.mark("curve") }
}

// SummationMethod sets how AUC sums its Riemann terms: "interpolation"
// (default: the trapezoid for ROC, Davis and Goadrich's interpolation for
// PR), "minoring" or "majoring".
func SummationMethod(m string) Option {
	return func(c *config) { c.summation = m; c.mark("summation_method") }
}

// K sets how many of the highest predictions TopKCategoricalAccuracy and
// SparseTopKCategoricalAccuracy look at (default 5).
func K(k int) Option {
	return func(c *config) { c.k = k; c.mark("k") }
}

// checkThresholds fails unless every threshold is in [0, 1], as Keras'
// Precision and Recall require.
func checkThresholds(kind string, ts []float64) {
	if ts != nil && len(ts) == 0 {
		fail(kind, "thresholds: empty list")
	}
	for _, t := range ts {
		if !(t >= 0 && t <= 1) {
			fail(kind, "threshold %v is not in [0, 1]", t)
		}
	}
}

// ConfigOptions returns the options that the Keras config c of a metric
// sets (the keys "name", "threshold", "thresholds", "from_logits",
// "label_smoothing", "top_k", "class_id", "num_thresholds", "curve",
// "summation_method", "multi_label", "num_labels", "label_weights", "k"),
// for loading a metric that Keras or gokeras saved. Null values keep the
// defaults; a value of the wrong type is an error naming its key.
func ConfigOptions(c map[string]any) ([]Option, error) {
	var opts []Option
	num := func(key string) (float64, bool, error) {
		v, ok := c[key]
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
		return 0, false, fmt.Errorf("metrics: config key %s: %v (%T) is not a number", key, v, v)
	}
	integer := func(key string) (int, bool, error) {
		x, ok, err := num(key)
		if err != nil || !ok {
			return 0, ok, err
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<31 {
			return 0, false, fmt.Errorf("metrics: config key %s: %v is not an integer", key, x)
		}
		return int(x), true, nil
	}
	if s, ok := c["name"].(string); ok {
		opts = append(opts, Name(s))
	}
	if x, ok, err := num("threshold"); err != nil {
		return nil, err
	} else if ok {
		opts = append(opts, Threshold(x))
	}
	if x, ok, err := num("label_smoothing"); err != nil {
		return nil, err
	} else if ok {
		opts = append(opts, LabelSmoothing(x))
	}
	if v, ok := c["from_logits"]; ok && v != nil {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("metrics: config key from_logits: %v (%T) is not a bool", v, v)
		}
		opts = append(opts, FromLogits(b))
	}
	switch v := c["thresholds"].(type) {
	case nil:
	case []any:
		ts := make([]float64, len(v))
		for i, e := range v {
			f, ok := e.(float64)
			if !ok {
				return nil, fmt.Errorf("metrics: config key thresholds: element %d, %v (%T), is not a number", i, e, e)
			}
			ts[i] = f
		}
		opts = append(opts, Thresholds(ts...))
	case []float64:
		opts = append(opts, Thresholds(v...))
	default:
		x, _, err := num("thresholds")
		if err != nil {
			return nil, err
		}
		opts = append(opts, Thresholds(x))
	}
	for _, key := range []string{"top_k", "class_id", "num_thresholds", "k"} {
		x, ok, err := integer(key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		switch key {
		case "top_k":
			opts = append(opts, TopK(x))
		case "class_id":
			opts = append(opts, ClassID(x))
		case "num_thresholds":
			opts = append(opts, NumThresholds(x))
		case "k":
			opts = append(opts, K(x))
		}
	}
	for _, key := range []string{"curve", "summation_method"} {
		v, ok := c[key]
		if !ok || v == nil {
			continue
		}
		s, isString := v.(string)
		if !isString {
			return nil, fmt.Errorf("metrics: config key %s: %v (%T) is not a string", key, v, v)
		}
		if key == "curve" {
			opts = append(opts, Curve(s))
		} else {
			opts = append(opts, SummationMethod(s))
		}
	}
	if b, ok := c["multi_label"].(bool); ok && b {
		return nil, fmt.Errorf("metrics: config key multi_label: true is not supported (AUC over flattened labels only)")
	}
	if v := c["label_weights"]; v != nil {
		return nil, fmt.Errorf("metrics: config key label_weights: %v is not supported", v)
	}
	return moreConfigOptions(c, opts)
}
