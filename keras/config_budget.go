package keras

import (
	"fmt"
	"math"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// Sizes a model file's config implies, bounded before anything is built.
//
// A config is a few bytes that name sizes: units, num_tokens, repeat
// counts, input shapes. Weights must be in the file (the weight budget of
// saving_config.go); what a layer without weights makes (its output, the
// constants it traces) is paid for by nobody, so every such size is held
// to the tensor budget: at most [LoadConfig.MaxTensorValues] values, by
// default the larger of [DefaultMinTensorValues] and 64 times the values
// the file's weights can hold. Two checks apply it. Before any layer is
// made, checkConfigBudget reads every layer config of the file (nested
// models and wrapped layers included, whatever the class, registered or
// not): each count (sizeKeys) and each product of a declared shape
// (shapeKeys, with overflow checks) must fit. Then, while the model is
// built, every layer's output shape per sample must fit (checkOutputSize):
// this bounds what counts multiply into, such as RepeatVector's n times
// its input's features.

// DefaultMinTensorValues is the least tensor budget of a loaded model: 4Mi
// values (16 MiB of float32) per tensor per sample, room for a 1024x1024
// RGB input whatever the file's size.
const DefaultMinTensorValues = 1 << 22

// tensorBudgetPerWeight is how many values per weight value a file may
// ask of any one tensor: feature maps of a convolutional network hold
// many more values than its kernels.
const tensorBudgetPerWeight = 64

// LoadConfig holds the settings of [LoadModelWith]; its zero value gives
// [LoadModel]'s.
type LoadConfig struct {
	// MaxTensorValues bounds every size the file's config implies before
	// anything is allocated: each count of a layer config (units,
	// num_tokens, n, kernel and pool sizes, heights and widths, ...), the
	// product of each declared shape, and each layer's output per sample.
	// Zero means the larger of DefaultMinTensorValues and 64 times the
	// values the file's weights can hold. A model built for inputs larger
	// than that needs it raised.
	MaxTensorValues int64
}

// tensorBudget is c's tensor budget for a file whose weights hold at most
// weightValues values.
func (c LoadConfig) tensorBudget(weightValues int64) int64 {
	if c.MaxTensorValues > 0 {
		return c.MaxTensorValues
	}
	if weightValues > math.MaxInt64/tensorBudgetPerWeight {
		return math.MaxInt64
	}
	return max(DefaultMinTensorValues, tensorBudgetPerWeight*weightValues)
}

// sizeKeys are the config keys whose integers are counts of some tensor's
// values, in any layer class: each must be at most the tensor budget.
var sizeKeys = map[string]bool{
	"units": true, "filters": true, "kernel_size": true, "pool_size": true, "strides": true,
	"dilation_rate": true, "input_dim": true, "output_dim": true, "num_tokens": true, "n": true,
	"height": true, "width": true, "size": true, "cropping": true, "padding": true,
	"output_padding": true, "num_heads": true, "key_dim": true, "value_dim": true,
	"depth_multiplier": true, "max_tokens": true, "num_bins": true, "num_oov_indices": true,
	"output_sequence_length": true, "groups": true, "lora_rank": true, "ngrams": true,
}

// shapeKeys are the config keys that declare a tensor's shape (a list of
// dimensions, null for the batch or an unknown size, -1 for Reshape's
// inferred one): the product of its dimensions must be at most the
// tensor budget.
var shapeKeys = map[string]bool{
	"batch_shape": true, "batch_input_shape": true, "shape": true, "input_shape": true,
	"target_shape": true, "build_input_shape": true, "dims": true,
	"newshape": true, // the Reshape operation (saving_nodes.go)
}

// budgetError is a size of a config beyond the tensor budget.
func budgetError(class, name, key string, v any, what string, budget int64) error {
	return fmt.Errorf("layer %q (%s): %s = %s: %s more than the %d values a tensor of this file may hold (LoadConfig.MaxTensorValues)",
		name, class, key, compactJSON(v), what, budget)
}

// compactJSON prints a config value briefly.
func compactJSON(v any) string {
	var s string
	switch x := v.(type) {
	case float64:
		s = fmt.Sprint(x)
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			s = fmt.Sprintf("%.0f", x)
		}
	case nil:
		s = "null"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = compactJSON(e)
		}
		s = "[" + strings.Join(parts, ", ") + "]"
	default:
		s = fmt.Sprint(x)
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// checkConfigBudget checks every layer config in the config.json tree v
// (any map with a "class_name" and a "config" map) against the tensor
// budget, before any layer is made.
func checkConfigBudget(v any, budget int64) error {
	var err error
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if err != nil {
			return
		}
		if depth > maxConfigDepth {
			err = fmt.Errorf("config nested deeper than %d levels", maxConfigDepth)
			return
		}
		switch v := v.(type) {
		case map[string]any:
			// Inner layers first: the error names the layer that
			// declares a size (an InputLayer), not a model repeating it.
			for _, k := range sortedKeys(v) {
				walk(v[k], depth+1)
			}
			class, _ := v["class_name"].(string)
			if cfg, ok := v["config"].(map[string]any); ok && class != "" && err == nil {
				if err = checkLayerConfig(class, cfg, budget); err != nil {
					return
				}
				if bc, ok := v["build_config"].(map[string]any); ok {
					name, _ := cfg["name"].(string)
					err = checkBuildConfig(class, name, bc, budget)
				}
			}
		case []any:
			for _, e := range v {
				walk(e, depth+1)
			}
		}
	}
	walk(v, 0)
	return err
}

// maxConfigDepth bounds the nesting of a config (nested models, wrappers,
// lists): a deeper one is an error rather than a deep recursion.
const maxConfigDepth = 512

// checkLayerConfig checks one layer config's counts and shapes.
func checkLayerConfig(class string, cfg map[string]any, budget int64) error {
	name, _ := cfg["name"].(string)
	for _, k := range sortedKeys(cfg) {
		switch {
		case sizeKeys[k]:
			if n, ok := largestInt(cfg[k]); ok && n > float64(budget) {
				return budgetError(class, name, k, cfg[k], "a count", budget)
			}
		case shapeKeys[k]:
			if p, ok := shapeProduct(cfg[k]); ok && p > float64(budget) {
				return budgetError(class, name, k, cfg[k], "a shape of", budget)
			}
		}
	}
	for _, p := range classProducts[class] {
		prod := 1.0
		for _, k := range p {
			if n, ok := largestInt(cfg[k]); ok {
				prod *= max(n, 1)
			}
		}
		if prod > float64(budget) {
			return budgetError(class, name, strings.Join(p, " x "), prod, "a product of", budget)
		}
	}
	return nil
}

// classProducts are the products of counts of a class's config that size
// one tensor (a Resizing output of height x width per channel).
var classProducts = map[string][][]string{
	"Resizing":            {{"height", "width"}},
	"CenterCrop":          {{"height", "width"}},
	"RandomCrop":          {{"height", "width"}},
	"MultiHeadAttention":  {{"num_heads", "key_dim"}, {"num_heads", "value_dim"}},
	"GroupQueryAttention": {{"num_query_heads", "head_dim"}},
	"Embedding":           {{"input_dim", "output_dim"}},
}

// checkBuildConfig checks the shapes of a layer entry's build_config:
// "input_shape" (a shape or a list of shapes) and "shapes_dict".
func checkBuildConfig(class, name string, bc map[string]any, budget int64) error {
	var shapes []any
	switch s := bc["input_shape"].(type) {
	case []any:
		if len(s) > 0 {
			if _, nested := s[0].([]any); nested {
				shapes = s
			} else {
				shapes = []any{s}
			}
		}
	}
	if d, ok := bc["shapes_dict"].(map[string]any); ok {
		for _, k := range sortedKeys(d) {
			shapes = append(shapes, d[k])
		}
	}
	for _, s := range shapes {
		if p, ok := shapeProduct(s); ok && p > float64(budget) {
			return budgetError(class, name, "build_config", s, "a shape of", budget)
		}
	}
	return nil
}

// largestInt is the largest absolute value of the integers in v (a number
// or nested lists of numbers), as a float64 so that nothing overflows.
func largestInt(v any) (float64, bool) {
	switch x := v.(type) {
	case []any:
		best, found := 0.0, false
		for _, e := range x {
			if n, ok := largestInt(e); ok {
				best, found = max(best, n), true
			}
		}
		return best, found
	default:
		if f, ok := toFloat(v); ok && !math.IsNaN(f) {
			return math.Abs(f), true
		}
	}
	return 0, false
}

// shapeProduct is the product of the known dimensions of a shape (nulls
// and negative dimensions skipped), as a float64: +Inf past any int.
func shapeProduct(v any) (float64, bool) {
	list, ok := v.([]any)
	if !ok {
		return 0, false
	}
	p := 1.0
	for _, d := range list {
		f, ok := toFloat(d)
		if !ok {
			if _, nested := d.([]any); nested {
				return 0, false // a list of shapes, checked one by one elsewhere
			}
			continue
		}
		if f > 0 {
			p *= f
		}
	}
	return p, true
}

// shapeValues is the values of one sample of a tensor of shape s (batch
// first; unknown dimensions count as 1), saturating at MaxInt64.
func shapeValues(s ops.Shape) int64 {
	n := int64(1)
	for _, d := range s[min(1, len(s)):] {
		if d <= 0 {
			continue
		}
		if n > math.MaxInt64/int64(d) {
			return math.MaxInt64
		}
		n *= int64(d)
	}
	return n
}

// checkOutputSize refuses a layer whose output per sample is beyond the
// tensor budget (0: no budget).
func checkOutputSize(l layers.Layer, out ops.Shape, budget int64) error {
	if budget <= 0 || out == nil {
		return nil
	}
	if n := shapeValues(out); n > budget {
		return fmt.Errorf("layer %q (%s): output shape %v: %d values per sample, more than the %d values a tensor of this file may hold (LoadConfig.MaxTensorValues)",
			l.Name(), l.ClassName(), out, n, budget)
	}
	return nil
}

// checkSequentialOutputs builds the layers of a Sequential config one by
// one from shape (without the batch; nil: the first layer's declared
// input shape, or nothing to check) and refuses the first whose output is
// beyond the tensor budget, before the model is made of them.
func checkSequentialOutputs(ls []layers.Layer, shape []int, budget int64) error {
	if budget <= 0 || len(ls) == 0 {
		return nil
	}
	in := ops.Shape(shape)
	if in == nil {
		in = ls[0].InputShape()
	}
	if in == nil {
		return nil // built later, from data
	}
	s := append(ops.Shape{-1}, in...)
	for _, l := range ls {
		if _, ok := l.(*layers.InputLayer); ok {
			continue
		}
		out, err := layers.OutputShape(l, []ops.Shape{s})
		if err != nil {
			return nil // NewSequential reports it, as before
		}
		if err := checkOutputSize(l, out, budget); err != nil {
			return err
		}
		s = out
	}
	return nil
}
