// Package mixedprecision is Keras' keras.mixed_precision: dtype policies
// that say in which dtype a layer computes and in which it keeps its
// variables, and the global policy layers pick up when they are made.
//
//	mixedprecision.SetGlobalPolicy("mixed_bfloat16")
//	defer mixedprecision.SetGlobalPolicy("float32")
//
// gokeras keeps every value in float32 buffers: a layer whose compute
// dtype is bfloat16 or float16 rounds its inputs, weights and output to
// that dtype (ops.CastToBFloat16, ops.CastToFloat16), so that it computes
// what Keras computes in the low precision while GEMMs and reductions
// accumulate in float32, as Keras' kernels do.
package mixedprecision

import (
	"fmt"
	"strings"
	"sync"
)

// DTypePolicy is Keras' DTypePolicy: a name, the dtype a layer computes
// in and the dtype of its variables. The zero DTypePolicy is "float32".
type DTypePolicy struct {
	name string
}

// floatDTypes are the float dtypes a policy may name, as Keras'
// standardize_dtype accepts them ("half" and "float" are its aliases).
var floatDTypes = map[string]string{
	"float16": "float16", "half": "float16",
	"bfloat16": "bfloat16",
	"float32":  "float32", "float": "float32",
	"float64": "float64", "double": "float64",
}

// ValidNames lists the policy names NewPolicy accepts, for error messages.
const ValidNames = `"mixed_float16", "mixed_bfloat16", "float32", "float16", "bfloat16", "float64"`

// NewPolicy returns the policy of this name: "mixed_float16" (compute
// float16, variables float32), "mixed_bfloat16" (bfloat16, float32), or a
// float dtype that is both ("float32", "float16", "bfloat16", "float64").
// Other names are an error naming the valid ones, as Keras raises.
func NewPolicy(name string) (DTypePolicy, error) {
	switch name {
	case "mixed_float16", "mixed_bfloat16":
		return DTypePolicy{name: name}, nil
	}
	if d, ok := floatDTypes[name]; ok {
		return DTypePolicy{name: d}, nil
	}
	return DTypePolicy{}, fmt.Errorf("mixedprecision: cannot convert %q to a mixed precision DTypePolicy; valid policies are %s", name, ValidNames)
}

// MustPolicy is NewPolicy for names known to be valid; it panics otherwise.
func MustPolicy(name string) DTypePolicy {
	p, err := NewPolicy(name)
	if err != nil {
		panic(err)
	}
	return p
}

// Name is the policy's name, such as "mixed_bfloat16".
func (p DTypePolicy) Name() string {
	if p.name == "" {
		return "float32"
	}
	return p.name
}

// ComputeDType is the dtype layers compute in: "bfloat16" for
// "mixed_bfloat16", "float16" for "mixed_float16", else the name.
func (p DTypePolicy) ComputeDType() string {
	n := p.Name()
	if rest, ok := strings.CutPrefix(n, "mixed_"); ok {
		return rest
	}
	return n
}

// VariableDType is the dtype of the variables: "float32" for the mixed
// policies, else the name.
func (p DTypePolicy) VariableDType() string {
	n := p.Name()
	if strings.HasPrefix(n, "mixed_") {
		return "float32"
	}
	return n
}

// IsMixed reports whether the policy computes in a lower precision than
// float32 (its compute dtype is bfloat16 or float16).
func (p DTypePolicy) IsMixed() bool {
	c := p.ComputeDType()
	return c == "bfloat16" || c == "float16"
}

// String is Keras' repr: <DTypePolicy "mixed_bfloat16">.
func (p DTypePolicy) String() string { return fmt.Sprintf("<DTypePolicy %q>", p.Name()) }

// Config is the policy as a Keras 3 config writes a layer's "dtype"
// entry: {"module": "keras", "class_name": "DTypePolicy", "config":
// {"name": ...}, "registered_name": null}.
func (p DTypePolicy) Config() map[string]any {
	return map[string]any{
		"module":          "keras",
		"class_name":      "DTypePolicy",
		"config":          map[string]any{"name": p.Name()},
		"registered_name": nil,
	}
}

// FromConfig reads a layer's "dtype" entry: a policy name string (older
// files and Keras 2), or the DTypePolicy dict Config writes (class
// "DTypePolicy", "FloatDTypePolicy" or Keras 2's "Policy"). nil is the
// global policy, as a missing entry is in Keras.
func FromConfig(v any) (DTypePolicy, error) {
	switch v := v.(type) {
	case nil:
		return GlobalPolicy(), nil
	case string:
		return NewPolicy(v)
	case DTypePolicy:
		return v, nil
	case map[string]any:
		class, _ := v["class_name"].(string)
		switch class {
		case "DTypePolicy", "FloatDTypePolicy", "Policy", "":
		default:
			return DTypePolicy{}, fmt.Errorf("mixedprecision: dtype policy class %q is not supported (DTypePolicy)", class)
		}
		cfg, _ := v["config"].(map[string]any)
		if cfg == nil {
			return DTypePolicy{}, fmt.Errorf("mixedprecision: dtype policy %v has no config", v)
		}
		name, ok := cfg["name"].(string)
		if !ok {
			return DTypePolicy{}, fmt.Errorf("mixedprecision: dtype policy config %v has no name", cfg)
		}
		return NewPolicy(name)
	}
	return DTypePolicy{}, fmt.Errorf("mixedprecision: cannot read a dtype policy from %T", v)
}

var (
	globalMu sync.RWMutex
	global   DTypePolicy
)

// SetGlobalPolicy sets the policy that layers made afterwards take when
// they are given none (keras.mixed_precision.set_global_policy, alias
// keras.config.set_dtype_policy). Layers already made keep theirs.
func SetGlobalPolicy(name string) error {
	p, err := NewPolicy(name)
	if err != nil {
		return err
	}
	SetGlobal(p)
	return nil
}

// SetGlobal is SetGlobalPolicy for a policy value.
func SetGlobal(p DTypePolicy) {
	globalMu.Lock()
	global = p
	globalMu.Unlock()
}

// GlobalPolicy returns the global policy ("float32" until set).
func GlobalPolicy() DTypePolicy {
	globalMu.RLock()
	defer globalMu.RUnlock()
	return global
}
