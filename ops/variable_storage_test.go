package ops

import (
	"errors"
	"testing"
)

// TestNewVariableOwnedKeepsStorage: the variable stores the given slice
// (no copy), which is what lets a layer hold its weights once.
func TestNewVariableOwnedKeepsStorage(t *testing.T) {
	vals := []float32{1, 2, 3, 4}
	v := NewVariableOwned("w", Shape{2, 2}, vals, true)
	if &v.Data(0)[0] != &vals[0] {
		t.Error("NewVariableOwned copied its values")
	}
	c := NewVariable("c", Shape{2, 2}, vals, true)
	if &c.Data(0)[0] == &vals[0] {
		t.Error("NewVariable kept the caller's slice")
	}
}

// TestAssignFromEveryReplica: AssignFrom fills the first copy and copies
// it to the others; fill's error names the variable.
func TestAssignFromEveryReplica(t *testing.T) {
	v := NewVariable("w", Shape{3}, []float32{0, 0, 0}, true)
	v.Mirror(3)
	if err := v.AssignFrom(func(dst []float32) error { copy(dst, []float32{1, 2, 3}); return nil }); err != nil {
		t.Fatal(err)
	}
	for r := range 3 {
		if got := v.Data(r); got[0] != 1 || got[1] != 2 || got[2] != 3 {
			t.Errorf("replica %d holds %v", r, got)
		}
	}
	err := v.AssignFrom(func([]float32) error { return errors.New("bad file") })
	if err == nil || err.Error() != `ops: assign to "w": bad file` {
		t.Errorf("AssignFrom's error: %v", err)
	}
}
