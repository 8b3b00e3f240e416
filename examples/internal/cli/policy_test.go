package cli

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/mixedprecision"
)

func TestSetPolicy(t *testing.T) {
	defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	if err := SetPolicy("mixed_bfloat16"); err != nil {
		t.Fatal(err)
	}
	if p := mixedprecision.GlobalPolicy().Name(); p != "mixed_bfloat16" {
		t.Errorf("global policy %s", p)
	}
	err := SetPolicy("bf16")
	if err == nil || !strings.Contains(err.Error(), "-policy") || !strings.Contains(err.Error(), "mixed_bfloat16") {
		t.Errorf("SetPolicy(bf16) = %v, want an error naming -policy and the valid policies", err)
	}
}
