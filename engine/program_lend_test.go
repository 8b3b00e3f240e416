package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// countingBacking is an ops.Backing and ops.Lender holding val, counting
// the floats lent at once (now, most) and the reads.
type countingBacking struct {
	val             []float32
	now, most, read *int
}

func (c countingBacking) ReadValue(_ int, dst []float32) { copy(dst, c.val); *c.read++ }
func (c countingBacking) WriteValue(src []float32)       { copy(c.val, src) }
func (c countingBacking) Lent(_, n int) {
	*c.now += n
	*c.most = max(*c.most, *c.now)
}
func (c countingBacking) Returned(_, n int) { *c.now -= n }

// TestRunLendsUnboundVariables: a program reading two backed variables
// whose copies are unbound gets each whole only for the steps that read
// it: the values are right, each reading step reads it once, and at no
// time does the run hold both (the most lent at once is the larger).
func TestRunLendsUnboundVariables(t *testing.T) {
	var now, most, read int
	a := ops.NewVariable("a", ops.Shape{3}, []float32{0, 0, 0}, true)
	a.SetBacking(countingBacking{val: []float32{1, 2, 3}, now: &now, most: &most, read: &read})
	b := ops.NewVariable("b", ops.Shape{5}, make([]float32, 5), true)
	b.SetBacking(countingBacking{val: []float32{10, 20, 30, 40, 50}, now: &now, most: &most, read: &read})
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Input("x", ops.Shape{3})
	y := ops.Mul(x, tr.Read(a))              // step 1 reads a
	s := ops.Sum(ops.Neg(tr.Read(b)), false) // reads b
	z := ops.Add(ops.Sum(y, false), s)       // reads neither
	p, err := engine.Compile(tr, []ops.Tensor{z, y})
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ {
		read, most = 0, 0
		out, err := p.Run(nil, []ops.Value{{Shape: ops.Shape{3}, Data: []float32{1, 1, 2}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := out[0].Data[0]; got != 1+2+6-150 {
			t.Errorf("run %d: z = %v, want %v", run, got, 1+2+6-150)
		}
		if now != 0 || most != 5 || read != 2 {
			t.Errorf("run %d: %d floats lent after the run, at most %d at once, %d reads; want 0, 5 (b alone), 2", run, now, most, read)
		}
	}
	// Bound, a copy is the program's storage: nothing is lent.
	if err := a.BindCopy(0, []float32{2, 2, 2}); err != nil {
		t.Fatal(err)
	}
	read = 0
	out, err := p.Run(nil, []ops.Value{{Shape: ops.Shape{3}, Data: []float32{1, 1, 1}}})
	if err != nil || out[1].Data[2] != 2 || read != 1 {
		t.Errorf("with a bound: y %v, %v, %d reads; want [2 2 2] and one read (b)", out[1].Data, err, read)
	}
}

// rowsBacking is countingBacking for a rank-2 table that reads rows.
type rowsBacking struct {
	countingBacking
	cols int
	rows *[]int
}

func (r rowsBacking) ReadRows(_ int, rows []int, dst []float32) {
	*r.rows = append(*r.rows, rows...)
	for k, row := range rows {
		copy(dst[k*r.cols:(k+1)*r.cols], r.val[row*r.cols:(row+1)*r.cols])
	}
}

// TestRunLendsGatheredRows: an embedding's Gather over a table kept by a
// backing that reads rows is lent the rows its ids name, not the table:
// the output is the same, the loan is those rows, and an id out of range
// still fails the run with Gather's error.
func TestRunLendsGatheredRows(t *testing.T) {
	var now, most, read int
	var rows []int
	val := make([]float32, 100*4)
	for i := range val {
		val[i] = float32(i)
	}
	tab := ops.NewVariable("tab", ops.Shape{100, 4}, make([]float32, 400), true)
	tab.SetBacking(rowsBacking{countingBacking{val: val, now: &now, most: &most, read: &read}, 4, &rows})
	tr := ops.NewTrace(false, 0, 1)
	ids := tr.Input("ids", ops.Shape{2, 3})
	p, err := engine.Compile(tr, []ops.Tensor{ops.Gather(tr.Read(tab), ids)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(nil, []ops.Value{{Shape: ops.Shape{2, 3}, Data: []float32{7, 3, 7, 99, 0.5, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	for k, id := range []int{7, 3, 7, 99, 0, 3} {
		for c := range 4 {
			if got := out[0].Data[4*k+c]; got != float32(4*id+c) {
				t.Fatalf("row %d (id %d) column %d: %v, want %v", k, id, c, got, 4*id+c)
			}
		}
	}
	if fmt.Sprint(rows) != "[0 3 7 99]" || most != 4*4 || now != 0 || read != 0 {
		t.Errorf("rows read %v, at most %d floats lent, %d after, %d whole reads; want [0 3 7 99], 16, 0, 0", rows, most, now, read)
	}
	_, err = p.Run(nil, []ops.Value{{Shape: ops.Shape{2, 3}, Data: []float32{1, 2, 100, 0, 0, 0}}})
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("an id out of range: %v, want Gather's error", err)
	}
}
