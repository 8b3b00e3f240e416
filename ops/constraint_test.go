package ops_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/gokeras/gokeras/ops"
)

type halve struct{}

func (halve) Project(w []float32, _ ops.Shape) {
	for i := range w {
		w[i] /= 2
	}
}

func TestConstraintAttachAndApply(t *testing.T) {
	v := ops.NewVariable("w", ops.Shape{2}, []float32{4, -2}, true)
	v.Mirror(2)
	if ops.VariableConstraint(v) != nil {
		t.Fatal("a new variable has a constraint")
	}
	ops.ApplyConstraint(v, 0) // none: unchanged
	ops.SetConstraint(v, halve{})
	ops.ApplyConstraint(v, 1)
	if got := v.Data(1); got[0] != 2 || got[1] != -1 {
		t.Errorf("replica 1 after the constraint: %v, want [2 -1]", got)
	}
	if got := v.Data(0); got[0] != 4 || got[1] != -2 {
		t.Errorf("replica 0 changed: %v", got)
	}
	ops.SetConstraint(v, nil)
	if ops.VariableConstraint(v) != nil {
		t.Error("SetConstraint(v, nil) left the constraint")
	}
}

// TestConstraintDoesNotKeepVariables: attaching constraints to many
// variables keeps none of them alive.
func TestConstraintDoesNotKeepVariables(t *testing.T) {
	collected := make(chan struct{}, 1)
	func() {
		v := ops.NewVariable("big", ops.Shape{1 << 16}, make([]float32, 1<<16), true)
		ops.SetConstraint(v, halve{})
		runtime.AddCleanup(v, func(struct{}) { collected <- struct{}{} }, struct{}{})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		select {
		case <-collected:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Error("a variable with a constraint was not collected")
}
