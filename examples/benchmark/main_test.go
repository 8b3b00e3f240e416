package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/mixedprecision"
)

func TestReferencePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "torch_reference.py")
	if err := os.WriteFile(file, []byte("# reference\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.py")
	os.WriteFile(other, nil, 0o644)
	for _, c := range []struct {
		flag, env, want, wantErr string
	}{
		{file, "", file, ""},
		{file, other, file, ""}, // the flag wins
		{"", file, file, ""},
		{"", "", "", "pass -reference PATH or set " + envReference},
		{filepath.Join(dir, "missing.py"), "", "", "-reference " + filepath.Join(dir, "missing.py") + ": "},
		{"", filepath.Join(dir, "missing.py"), "", "$" + envReference + " " + filepath.Join(dir, "missing.py") + ": "},
		{dir, "", "", "not a file"},
	} {
		got, err := referencePath(c.flag, c.env)
		switch {
		case c.wantErr == "" && (err != nil || got != c.want):
			t.Errorf("referencePath(%q, %q) = %q, %v; want %q", c.flag, c.env, got, err, c.want)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("referencePath(%q, %q) = %q, %v; want an error containing %q", c.flag, c.env, got, err, c.wantErr)
		}
	}
}

// TestTimePolicies: -policy times the model under float32 and the policy
// (small batch, one round) and leaves the global policy float32.
func TestTimePolicies(t *testing.T) {
	ts, err := timePolicies(modelSpec{name: "mnist_cnn", width: 1}, 4, 2, 1, 1, 2, []string{"float32", "mixed_bfloat16"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("%d results for 2 policies", len(ts))
	}
	for i, s := range ts {
		if !(s.mean > 0 && s.median > 0) {
			t.Errorf("policy %d: step times %+v", i, s)
		}
	}
	if p := mixedprecision.GlobalPolicy().Name(); p != "float32" {
		t.Errorf("global policy %s after timing", p)
	}
	if _, err := timePolicies(modelSpec{name: "mnist_cnn", width: 1}, 4, 1, 1, 1, 1, []string{"float32", "bf16"}); err == nil {
		t.Error("an unknown policy was timed")
	}
}
