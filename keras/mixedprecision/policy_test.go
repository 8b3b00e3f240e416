package mixedprecision_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/mixedprecision"
)

func TestPolicies(t *testing.T) {
	for _, c := range []struct{ name, want, compute, variable string }{
		{"mixed_float16", "mixed_float16", "float16", "float32"},
		{"mixed_bfloat16", "mixed_bfloat16", "bfloat16", "float32"},
		{"float32", "float32", "float32", "float32"},
		{"float16", "float16", "float16", "float16"},
		{"bfloat16", "bfloat16", "bfloat16", "bfloat16"},
		{"float64", "float64", "float64", "float64"},
		{"half", "float16", "float16", "float16"},
		{"float", "float32", "float32", "float32"},
	} {
		p, err := mixedprecision.NewPolicy(c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Name() != c.want || p.ComputeDType() != c.compute || p.VariableDType() != c.variable {
			t.Errorf("%s: name %s compute %s variable %s, want %s %s %s", c.name, p.Name(), p.ComputeDType(), p.VariableDType(), c.want, c.compute, c.variable)
		}
		if got, err := mixedprecision.FromConfig(p.Config()); err != nil || got != p {
			t.Errorf("%s: FromConfig(Config()) = %v, %v", c.name, got, err)
		}
	}
	var zero mixedprecision.DTypePolicy
	if zero.Name() != "float32" || zero.IsMixed() || zero.String() != `<DTypePolicy "float32">` {
		t.Errorf("zero policy: %s %v %s", zero.Name(), zero.IsMixed(), zero)
	}
	for _, bad := range []string{"", "int32", "mixed_int8", "Float32", "mixed_float32"} {
		_, err := mixedprecision.NewPolicy(bad)
		if err == nil || !strings.Contains(err.Error(), `"mixed_float16", "mixed_bfloat16"`) {
			t.Errorf("NewPolicy(%q) = %v, want an error naming the valid policies", bad, err)
		}
	}
}

func TestPolicyFromConfig(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"mixed_bfloat16", "mixed_bfloat16"},
		{map[string]any{"module": "keras", "class_name": "DTypePolicy", "config": map[string]any{"name": "mixed_float16"}, "registered_name": nil}, "mixed_float16"},
		{map[string]any{"class_name": "Policy", "config": map[string]any{"name": "mixed_bfloat16"}}, "mixed_bfloat16"},
		{map[string]any{"class_name": "FloatDTypePolicy", "config": map[string]any{"name": "float32"}}, "float32"},
	} {
		p, err := mixedprecision.FromConfig(c.v)
		if err != nil || p.Name() != c.want {
			t.Errorf("FromConfig(%v) = %v, %v; want %s", c.v, p, err, c.want)
		}
	}
	for _, bad := range []any{3.0, map[string]any{"class_name": "QuantizedDTypePolicy", "config": map[string]any{"name": "int8_from_float32"}},
		map[string]any{"class_name": "DTypePolicy"}, map[string]any{"class_name": "DTypePolicy", "config": map[string]any{"name": 1.0}},
		map[string]any{"class_name": "DTypePolicy", "config": map[string]any{"name": "int8"}}} {
		if p, err := mixedprecision.FromConfig(bad); err == nil {
			t.Errorf("FromConfig(%v) = %v, want an error", bad, p)
		}
	}
}

func TestGlobalPolicy(t *testing.T) {
	defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	if mixedprecision.GlobalPolicy().Name() != "float32" {
		t.Fatalf("default global policy %s", mixedprecision.GlobalPolicy())
	}
	if err := mixedprecision.SetGlobalPolicy("mixed_bfloat16"); err != nil {
		t.Fatal(err)
	}
	if p := mixedprecision.GlobalPolicy(); p.Name() != "mixed_bfloat16" || !p.IsMixed() {
		t.Errorf("global %s", p)
	}
	if p, _ := mixedprecision.FromConfig(nil); p.Name() != "mixed_bfloat16" {
		t.Errorf("FromConfig(nil) = %s, want the global policy", p)
	}
	if err := mixedprecision.SetGlobalPolicy("mixed_half"); err == nil {
		t.Error("SetGlobalPolicy(mixed_half) succeeded")
	}
	if p := mixedprecision.GlobalPolicy(); p.Name() != "mixed_bfloat16" {
		t.Errorf("a failed SetGlobalPolicy changed the policy to %s", p)
	}
}
