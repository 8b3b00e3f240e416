package engine

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
	"github.com/google/go-cmp/cmp"
)

// TestOpStats: per-op timing counts each step of a replay once per run
// under its op kind; by shape it splits a kind by its operands' shapes;
// turned off, it records nothing.
func TestOpStats(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	a := tr.Input("a", ops.Shape{4, 3})
	b := tr.Input("b", ops.Shape{3})
	p, err := Compile(tr, []ops.Tensor{ops.Neg(ops.Square(a)), ops.Neg(b)})
	if err != nil {
		t.Fatal(err)
	}
	in := []ops.Value{{Shape: ops.Shape{4, 3}, Data: make([]float32, 12)}, {Shape: ops.Shape{3}, Data: make([]float32, 3)}}
	run := func(runs int) map[string]int {
		t.Helper()
		for range runs {
			if _, err := p.Run(Single{}, in); err != nil {
				t.Fatal(err)
			}
		}
		calls := map[string]int{}
		for _, s := range OpStats() {
			calls[s.Kind+" "+s.Shapes] = s.Calls
			if s.Time < 0 {
				t.Errorf("%s %s: negative time %v", s.Kind, s.Shapes, s.Time)
			}
		}
		return calls
	}
	defer EnableOpStats(false)
	EnableOpStats(true)
	if diff := cmp.Diff(map[string]int{"Neg ": 6, "Square ": 3}, run(3)); diff != "" {
		t.Errorf("by kind, three runs (-want +got):\n%s", diff)
	}
	EnableOpStatsByShape(true)
	want := map[string]int{"Neg 4x3 -> 4x3": 2, "Neg 3 -> 3": 2, "Square 4x3 -> 4x3": 2}
	if diff := cmp.Diff(want, run(2)); diff != "" {
		t.Errorf("by shape, two runs (-want +got):\n%s", diff)
	}
	EnableOpStats(false)
	if diff := cmp.Diff(map[string]int{}, run(1)); diff != "" {
		t.Errorf("off (-want +got):\n%s", diff)
	}
}
