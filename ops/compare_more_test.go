package ops_test

import (
	"math"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestComparisonsValues(t *testing.T) {
	nan := float32(math.NaN())
	a := []float32{1, 2, 3, nan, -1, 0}
	b := []float32{1, 3, 2, nan, 0, -0.0}
	cases := []struct {
		name string
		f    func(x, y ops.Tensor) ops.Tensor
		want []float32
	}{
		{"Equal", ops.Equal, []float32{1, 0, 0, 0, 0, 1}},
		{"NotEqual", ops.NotEqual, []float32{0, 1, 1, 1, 1, 0}},
		{"Less", ops.Less, []float32{0, 1, 0, 0, 1, 0}},
		{"LessEqual", ops.LessEqual, []float32{1, 1, 0, 0, 1, 1}},
		{"GreaterEqual", ops.GreaterEqual, []float32{1, 0, 1, 0, 0, 1}},
	}
	for _, c := range cases {
		tr := ops.NewTrace(false, 0, 0)
		x := tr.Constant(ops.Shape{2, 3}, a)
		y := tr.Constant(ops.Shape{2, 3}, b)
		got := evalAll(t, tr, c.f(x, y))[0]
		if !slices.Equal(got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestComparisonsBroadcast(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	x := tr.Constant(ops.Shape{2, 3}, []float32{0, 1, 0, 2, 0, 3})
	got := evalAll(t, tr, ops.NotEqual(x, tr.Scalar(0)), ops.Equal(tr.Constant(ops.Shape{3}, []float32{0, 1, 2}), x))
	if want := []float32{0, 1, 0, 1, 0, 1}; !slices.Equal(got[0], want) {
		t.Errorf("NotEqual(x, 0) = %v, want %v", got[0], want)
	}
	if want := []float32{1, 1, 0, 0, 0, 0}; !slices.Equal(got[1], want) {
		t.Errorf("Equal([0 1 2], x) = %v, want %v", got[1], want)
	}
	mustFail(t, "Less", func() { ops.Less(x, tr.Constant(ops.Shape{2}, []float32{1, 2})) }, "(2, 3)", "broadcast")
}

func TestSelectValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	inf := float32(math.Inf(1))
	c := tr.Constant(ops.Shape{2, 1}, []float32{1, 0})
	a := tr.Constant(ops.Shape{2, 2}, []float32{1, 2, inf, 4})
	got := evalAll(t, tr, ops.Select(c, a, tr.Scalar(-1)))[0]
	if want := []float32{1, 2, -1, -1}; !slices.Equal(got, want) {
		t.Errorf("Select = %v, want %v (the infinity not taken must not leak)", got, want)
	}
	mustFail(t, "Select", func() { ops.Select(tr.Constant(ops.Shape{3}, []float32{1, 0, 1}), a, a) }, "broadcast")
}

func TestSelectGradients(t *testing.T) {
	checkGrad(t, gradCase{name: "Select", shapes: []ops.Shape{{3, 4}, {4}},
		build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Select(ops.Greater(x[0], tr.Scalar(0)), x[0], x[1])
		}})
}

func TestTie(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	x := tr.Constant(ops.Shape{2, 2}, []float32{1, 2, 3, 4})
	a, b := ops.Tie(x, tr.Scalar(1)), ops.Tie(x, tr.Scalar(2))
	if a.Node() == x.Node() || a.Node() == b.Node() {
		t.Fatal("Tie must make a node apart from x and from a Tie to another tensor")
	}
	if got := evalAll(t, tr, a)[0]; !slices.Equal(got, []float32{1, 2, 3, 4}) {
		t.Errorf("Tie = %v, want x", got)
	}
	checkGrad(t, gradCase{name: "Tie", shapes: []ops.Shape{{3, 2}},
		build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Mul(ops.Tie(x[0], tr.Constant(ops.Shape{3}, []float32{1, 0, 1})), x[0])
		}})
}
