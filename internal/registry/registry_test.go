package registry

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestLookup(t *testing.T) {
	ctors := map[string]func(...int) string{
		"mean_squared_error": func(o ...int) string {
			if len(o) > 0 && o[0] < 0 {
				panic(&ops.Error{Op: "mse", Msg: "bad option"})
			}
			return "mse"
		},
	}
	aliases := map[string]string{"mse": "mean_squared_error"}
	if v, err := Lookup("losses", "loss", "mse", ctors, aliases, nil); err != nil || v != "mse" {
		t.Errorf("alias: %q %v", v, err)
	}
	if _, err := Lookup("losses", "loss", "nope", ctors, aliases, nil); err == nil || !strings.Contains(err.Error(), `losses: unknown loss "nope" (known: mean_squared_error, mse)`) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := Lookup("losses", "loss", "mse", ctors, aliases, []int{-1}); err == nil || !strings.Contains(err.Error(), "bad option") {
		t.Errorf("bad option: %v", err)
	}
}
