package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSupportedUpToDate fails when docs/supported.md is not what the
// generator writes from the code as it is now.
func TestSupportedUpToDate(t *testing.T) {
	want, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/supported.md")
	if err != nil {
		t.Fatalf("%v: run go generate ./tools/supported", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("docs/supported.md is stale (line %d is %q, the code gives %q): run go generate ./tools/supported", i+1, g, w)
			}
		}
	}
}

// TestGenerateFindsEveryFamily checks that the generator's source reading
// finds something in every family: a renamed map or constructor style
// must break the generator, not empty a table.
func TestGenerateFindsEveryFamily(t *testing.T) {
	b, err := generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"| Dense | `layers.NewDense` |", "`relu`", "| MeanSquaredError | `losses.NewMeanSquaredError` | `\"MSE\"`",
		"| AUC | `metrics.NewAUC` | `\"AUC\"`, `\"auc\"` |", "| Adam | `optimizers.NewAdam` | `\"adam\"` |",
		"- `optimizers.ExponentialDecay`", "- EarlyStopping: `callbacks.NewEarlyStopping`",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("generated table lacks %q", want)
		}
	}
	if _, err := generate("."); err == nil {
		t.Error("generate of a folder without go.mod: no error")
	}
}
