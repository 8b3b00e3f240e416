package ops

import (
	"slices"
	"testing"
)

// halves is a Backing that keeps a value as two halves, as two devices
// would keep their shards, and counts what it lends per replica.
type halves struct {
	lo, hi []float32
	lent   [3]int
	read   []int // the replicas read for
}

func (h *halves) Lent(replica, n int)     { h.lent[replica] += n }
func (h *halves) Returned(replica, n int) { h.lent[replica] -= n }

func (h *halves) ReadValue(replica int, dst []float32) {
	h.read = append(h.read, replica)
	copy(dst, h.lo)
	copy(dst[len(h.lo):], h.hi)
}

func (h *halves) WriteValue(src []float32) {
	copy(h.lo, src)
	copy(h.hi, src[len(h.lo):])
}

// TestBackedVariable: a backed variable frees its copies, reads its value
// from the backing, writes through it, binds a buffer per replica for a
// step, and takes its value back when the backing is removed.
func TestBackedVariable(t *testing.T) {
	v := NewVariable("w", Shape{2, 2}, []float32{1, 2, 3, 4}, true)
	v.Mirror(2)
	h := &halves{lo: []float32{1, 2}, hi: []float32{3, 4}}
	v.SetBacking(h)
	if v.Backed() != h || v.Replicas() != 2 {
		t.Fatalf("backing %v, %d copies; want the backing and 2", v.Backed(), v.Replicas())
	}
	for _, c := range v.copies {
		if c != nil {
			t.Fatal("a backed variable kept the storage of a copy")
		}
	}
	if got := v.Numpy(); !slices.Equal(got, []float32{1, 2, 3, 4}) {
		t.Errorf("Numpy %v, want the backing's value", got)
	}
	if err := v.Assign([]float32{5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.lo, []float32{5, 6}) || !slices.Equal(h.hi, []float32{7, 8}) {
		t.Errorf("Assign wrote %v %v to the backing, want [5 6] [7 8]", h.lo, h.hi)
	}
	if err := v.AssignAdd([]float32{1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if err := v.AssignFrom(func(dst []float32) error { copy(dst, []float32{9, 9, 9, 9}); dst[3] = 0; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := v.Data(1); !slices.Equal(got, []float32{9, 9, 9, 0}) {
		t.Errorf("Data(1) after AssignFrom %v, want [9 9 9 0]", got)
	}
	v.Data(1)[0] = -1 // an unbound copy: a write to the slice is lost
	if got := v.Numpy(); got[0] != 9 {
		t.Errorf("a write to an unbound copy's slice reached the value: %v", got)
	}

	buf := []float32{9, 9, 9, 0}
	if err := v.BindCopy(1, buf); err != nil {
		t.Fatal(err)
	}
	v.Data(1)[2] = 42 // a step's in-place update of its bound copy
	if buf[2] != 42 || v.Data(0)[2] != 9 {
		t.Errorf("bound copy %v, copy 0 %v: the write must reach the bound buffer only", buf, v.Data(0))
	}
	if err := v.Assign([]float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(buf, []float32{1, 2, 3, 4}) {
		t.Errorf("Assign left the bound copy at %v", buf)
	}
	if got := v.UnbindCopy(1); &got[0] != &buf[0] {
		t.Error("UnbindCopy did not return the bound buffer")
	}
	if v.UnbindCopy(1) != nil {
		t.Error("a second UnbindCopy returned a buffer")
	}
	for _, bad := range []struct {
		rep int
		buf []float32
	}{{2, buf}, {-1, buf}, {0, buf[:3]}} {
		if err := v.BindCopy(bad.rep, bad.buf); err == nil {
			t.Errorf("BindCopy(%d, %d values) succeeded", bad.rep, len(bad.buf))
		}
	}
	v.Mirror(3)
	if v.Replicas() != 3 || v.Data(2)[3] != 4 {
		t.Errorf("Mirror(3) of a backed variable: %d copies, copy 2 %v", v.Replicas(), v.Data(2))
	}

	v.SetBacking(nil)
	if err := v.Assign([]float32{0, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.lo, []float32{1, 2}) || v.Replicas() != 3 || v.Data(2)[3] != 1 {
		t.Errorf("after SetBacking(nil): backing %v, %d copies, copy 2 %v", h.lo, v.Replicas(), v.Data(2))
	}
	plain := NewVariable("p", Shape{1}, []float32{1}, true)
	if err := plain.BindCopy(0, []float32{2}); err == nil {
		t.Error("BindCopy of a variable without a backing succeeded")
	}
}

// TestLendCopy: an executor borrows an unbound copy of a backed variable
// for one use (read for its replica, counted by a Lender backing) and
// gives it back; a bound copy or a variable of its own lends its storage.
func TestLendCopy(t *testing.T) {
	v := NewVariable("w", Shape{4}, []float32{1, 2, 3, 4}, true)
	if v.Unbound(0) {
		t.Error("a variable without a backing is unbound")
	}
	if buf, lent := v.LendCopy(0); lent || &buf[0] != &v.Data(0)[0] {
		t.Error("a variable of its own lent a new value instead of its storage")
	}
	v.Mirror(2)
	h := &halves{lo: []float32{1, 2}, hi: []float32{3, 4}}
	v.SetBacking(h)
	if !v.Unbound(1) || v.Unbound(2) {
		t.Errorf("Unbound(1) %v, Unbound(2) %v; want true, false (no such copy)", v.Unbound(1), v.Unbound(2))
	}
	h.read = nil
	buf, lent := v.LendCopy(1)
	if !lent || !slices.Equal(buf, []float32{1, 2, 3, 4}) || h.lent[1] != 4 || !slices.Equal(h.read, []int{1}) {
		t.Fatalf("LendCopy(1): %v lent=%v, backing counts %v, read for %v", buf, lent, h.lent, h.read)
	}
	v.ReturnCopy(1, buf)
	if h.lent[1] != 0 {
		t.Errorf("after ReturnCopy the backing counts %d lent", h.lent[1])
	}
	bound := []float32{5, 6, 7, 8}
	if err := v.BindCopy(1, bound); err != nil {
		t.Fatal(err)
	}
	if got, lent := v.LendCopy(1); lent || &got[0] != &bound[0] || v.Unbound(1) {
		t.Error("a bound copy was not lent as its storage")
	}
}

// rowTable is a RowReader backing of a 3x2 table, recording the rows read.
type rowTable struct {
	halves
	rows []int
}

func (r *rowTable) ReadRows(_ int, rows []int, dst []float32) {
	r.rows = append(r.rows, rows...)
	full := make([]float32, 6)
	r.ReadValue(0, full)
	for k, row := range rows {
		copy(dst[2*k:2*k+2], full[2*row:2*row+2])
	}
}

// TestLendRows: a rank-2 variable backed by a RowReader lends the rows a
// Gather reads, alone and counted; a bound copy, a backing without rows,
// a row out of range or another rank lend nothing.
func TestLendRows(t *testing.T) {
	v := NewVariable("t", Shape{3, 2}, make([]float32, 6), true)
	b := &rowTable{halves: halves{lo: []float32{1, 2, 3}, hi: []float32{4, 5, 6}}}
	v.SetBacking(b)
	buf, ok := v.LendRows(0, []int{0, 2})
	if !ok || !slices.Equal(buf, []float32{1, 2, 5, 6}) || b.lent[0] != 4 || !slices.Equal(b.rows, []int{0, 2}) {
		t.Fatalf("LendRows: %v ok=%v, lent %d, rows read %v", buf, ok, b.lent[0], b.rows)
	}
	v.ReturnCopy(0, buf)
	if b.lent[0] != 0 {
		t.Errorf("%d floats still lent", b.lent[0])
	}
	if _, ok := v.LendRows(0, []int{3}); ok {
		t.Error("a row out of range was lent")
	}
	if err := v.BindCopy(0, make([]float32, 6)); err != nil {
		t.Fatal(err)
	}
	if _, ok := v.LendRows(0, []int{1}); ok {
		t.Error("a bound copy lent rows")
	}
	w := NewVariable("w", Shape{2, 2}, make([]float32, 4), true)
	w.SetBacking(&halves{lo: []float32{1, 2}, hi: []float32{3, 4}})
	if _, ok := w.LendRows(0, []int{1}); ok {
		t.Error("a backing without ReadRows lent rows")
	}
	tr := NewTrace(false, 0, 1)
	g := Gather(tr.Constant(Shape{3, 2}, make([]float32, 6)), tr.Constant(Shape{2}, []float32{0, 1}))
	if op, ok := g.Node().Op().(*Op); !ok {
		t.Fatal("Gather is not an *Op")
	} else if tb, ids, ok := op.RowsRead(); !ok || tb != 0 || ids != 1 {
		t.Errorf("Gather's RowsRead: %d %d %v, want 0 1 true", tb, ids, ok)
	}
	if op, _ := Neg(tr.Scalar(1)).Node().Op().(*Op); op != nil {
		if _, _, ok := op.RowsRead(); ok {
			t.Error("Neg reads rows")
		}
	}
}
