package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// batchMatMulRef is the product of every batch entry by three nested
// loops in float64, reading the operands through their transposes.
func batchMatMulRef(a, b []float32, as, bs ops.Shape, ta, tb bool) []float32 {
	r := len(as)
	batch := as[:r-2].Size()
	m, k := as[r-2], as[r-1]
	if ta {
		m, k = k, m
	}
	n := bs[r-1]
	if tb {
		n = bs[r-2]
	}
	at := func(x []float32, rows, cols, i, j int, t bool) float32 {
		if t {
			return x[j*cols+i]
		}
		return x[i*cols+j]
	}
	out := make([]float32, batch*m*n)
	for z := 0; z < batch; z++ {
		az, bz := a[z*as[r-2]*as[r-1]:], b[z*bs[r-2]*bs[r-1]:]
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for p := 0; p < k; p++ {
					s += float64(at(az, as[r-2], as[r-1], i, p, ta)) * float64(at(bz, bs[r-2], bs[r-1], p, j, tb))
				}
				out[z*m*n+i*n+j] = float32(s)
			}
		}
	}
	return out
}

// TestBatchMatMulValues compares every transpose combination, on rank 3
// and rank 4 operands, with the reference loops.
func TestBatchMatMulValues(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		as, bs ops.Shape
		ta, tb bool
	}{
		{ops.Shape{3, 2, 4}, ops.Shape{3, 4, 5}, false, false},
		{ops.Shape{3, 4, 2}, ops.Shape{3, 4, 5}, true, false},
		{ops.Shape{3, 2, 4}, ops.Shape{3, 5, 4}, false, true},
		{ops.Shape{3, 4, 2}, ops.Shape{3, 5, 4}, true, true},
		{ops.Shape{2, 3, 6, 7}, ops.Shape{2, 3, 7, 1}, false, false},
		{ops.Shape{1, 1, 1}, ops.Shape{1, 1, 1}, false, false},
	} {
		a, b := make([]float32, c.as.Size()), make([]float32, c.bs.Size())
		for i := range a {
			a[i] = r.Float32()*2 - 1
		}
		for i := range b {
			b[i] = r.Float32()*2 - 1
		}
		got := runOne(t, func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
			return ops.BatchMatMul(in[0], in[1], c.ta, c.tb)
		}, []ops.Shape{c.as, c.bs}, [][]float32{a, b})
		want := batchMatMulRef(a, b, c.as, c.bs, c.ta, c.tb)
		if len(got) != len(want) {
			t.Fatalf("%v·%v: %d values, want %d", c.as, c.bs, len(got), len(want))
		}
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-5 {
				t.Fatalf("%v%v·%v%v [%d] = %v, want %v", c.as, c.ta, c.bs, c.tb, i, got[i], want[i])
			}
		}
	}
}

// TestBatchMatMulGradients checks both operands' gradients by central
// differences, for every transpose combination.
func TestBatchMatMulGradients(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	for _, c := range []gradCase{
		{name: "BatchMatMulNN", shapes: []ops.Shape{s(2, 3, 4), s(2, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BatchMatMul(x[0], x[1], false, false)
		}},
		{name: "BatchMatMulTN", shapes: []ops.Shape{s(2, 4, 3), s(2, 4, 2)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BatchMatMul(x[0], x[1], true, false)
		}},
		{name: "BatchMatMulNT", shapes: []ops.Shape{s(2, 3, 4), s(2, 2, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BatchMatMul(x[0], x[1], false, true)
		}},
		{name: "BatchMatMulTT4D", shapes: []ops.Shape{s(2, 2, 4, 3), s(2, 2, 2, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BatchMatMul(x[0], x[1], true, true)
		}},
		{name: "BatchMatMulSelf", shapes: []ops.Shape{s(3, 2, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.BatchMatMul(x[0], x[0], false, true)
		}},
	} {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
}

// TestBatchMatMulErrors: mismatched ranks, batch axes or inner
// dimensions fail with an *ops.Error naming the shapes.
func TestBatchMatMulErrors(t *testing.T) {
	for _, c := range []struct{ as, bs ops.Shape }{
		{ops.Shape{2, 3}, ops.Shape{3, 2}},
		{ops.Shape{2, 3, 4}, ops.Shape{3, 4, 2}},
		{ops.Shape{2, 3, 4}, ops.Shape{2, 3, 2}},
		{ops.Shape{2, 3, 4}, ops.Shape{1, 2, 3, 4}},
	} {
		func() {
			defer func() {
				r := recover()
				if _, ok := r.(*ops.Error); !ok {
					t.Errorf("%v·%v: recovered %v, want an *ops.Error", c.as, c.bs, r)
				}
			}()
			tr := ops.NewTrace(false, 0, 1)
			ops.BatchMatMul(tr.Input("a", c.as), tr.Input("b", c.bs), false, false)
		}()
	}
}
