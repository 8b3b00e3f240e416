package ops

import (
	"strings"
	"testing"
)

func TestShapeCheckedSize(t *testing.T) {
	for _, c := range []struct {
		s  Shape
		n  int
		ok bool
	}{
		{Shape{}, 1, true},
		{Shape{2, 3, 4}, 24, true},
		{Shape{0, 5}, 0, true},
		{Shape{-1, 5}, 0, false},
		{Shape{1 << 32, 1 << 32}, 0, false},
		{Shape{3037000500, 3037000500}, 0, false},
		{Shape{1 << 31, 1 << 31, 2}, 0, false},
		{Shape{1 << 31, 1 << 31}, 1 << 62, true},
	} {
		n, ok := c.s.CheckedSize()
		if n != c.n || ok != c.ok {
			t.Errorf("%v.CheckedSize() = %d, %v; want %d, %v", c.s, n, ok, c.n, c.ok)
		}
	}
}

func TestTraceInputRefusesOverflowingShape(t *testing.T) {
	defer func() {
		r := recover()
		e, ok := r.(*Error)
		if !ok || !strings.Contains(e.Error(), "more elements than an int counts") {
			t.Fatalf("Input of an overflowing shape: recovered %v, want an *ops.Error", r)
		}
	}()
	NewTrace(false, 0, 1).Input("x", Shape{3037000500, 3037000500, 3})
}
