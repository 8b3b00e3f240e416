package onnx

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// A layer's settings are read from its GetConfig, by Keras' keys, so the
// exporter sees what a .keras file would hold, whichever constructor or
// file made the layer.

func cfgNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case float32:
		return float64(v), true
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// cfgFloat reads a number; def when the key is absent or null.
func cfgFloat(cfg map[string]any, key string, def float64) (float64, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return def, nil
	}
	f, ok := cfgNumber(v)
	if !ok || math.IsNaN(f) {
		return 0, fmt.Errorf("config %q is %v (%T), want a number", key, v, v)
	}
	return f, nil
}

// cfgInt reads an integer.
func cfgInt(cfg map[string]any, key string, def int) (int, error) {
	f, err := cfgFloat(cfg, key, float64(def))
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("config %q is %v, want an integer", key, f)
	}
	return int(f), nil
}

// cfgBool reads a boolean.
func cfgBool(cfg map[string]any, key string, def bool) (bool, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("config %q is %v (%T), want a boolean", key, v, v)
	}
	return b, nil
}

// cfgString reads a string.
func cfgString(cfg map[string]any, key, def string) (string, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("config %q is %v (%T), want a string", key, v, v)
	}
	return s, nil
}

// cfgInts reads an integer or a list of integers (a tuple in Keras);
// one integer stands for n copies. A null list is def.
func cfgInts(cfg map[string]any, key string, n int, def []int) ([]int, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return def, nil
	}
	var out []int
	add := func(x any) error {
		f, ok := cfgNumber(x)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return fmt.Errorf("config %q holds %v (%T), want integers", key, x, x)
		}
		out = append(out, int(f))
		return nil
	}
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			if err := add(x); err != nil {
				return nil, err
			}
		}
	case []int:
		out = append(out, v...)
	default:
		if err := add(v); err != nil {
			return nil, err
		}
		for len(out) < n {
			out = append(out, out[0])
		}
	}
	if n > 0 && len(out) != n {
		return nil, fmt.Errorf("config %q is %v, want %d integers", key, v, n)
	}
	return out, nil
}

// cfgActivation reads an activation by name ("linear" when absent).
func cfgActivation(cfg map[string]any, key string) (string, error) {
	v, ok := cfg[key]
	if !ok || v == nil {
		return "linear", nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", unsupported("activation %v: only Keras' built-in activations by name", v)
}

// weightAliases are other names of a weight (Keras 3 calls
// DepthwiseConv2D's depthwise_kernel "kernel").
var weightAliases = map[string]string{"depthwise_kernel": "kernel"}

// weight returns the layer's weight named name ("<layer>/<name>", as
// layers.Base.AddWeight names them), or nil.
func weight(l layers.Layer, name string) *ops.Variable {
	for _, n := range []string{name, weightAliases[name]} {
		if n == "" {
			continue
		}
		for _, w := range l.Weights() {
			if wn := w.Name(); wn == n || strings.HasSuffix(wn, "/"+n) {
				return w
			}
		}
	}
	return nil
}

// mustWeight is weight with an error naming what is missing, and the
// shape checked.
func mustWeight(l layers.Layer, name string, shape ...int) (*ops.Variable, error) {
	w := weight(l, name)
	if w == nil {
		return nil, fmt.Errorf("has no weight %q (is it built?)", name)
	}
	if shape != nil && !w.Shape().Equal(ops.Shape(shape)) {
		return nil, fmt.Errorf("weight %q has shape %v, want %v", name, w.Shape(), shape)
	}
	return w, nil
}
