package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

func TestMinimumValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	nan := float32(math.NaN())
	a := tr.Constant(ops.Shape{2, 3}, []float32{1, -2, 3, 0, nan, -0.5})
	b := tr.Constant(ops.Shape{3}, []float32{2, -3, 3})
	y := ops.Minimum(a, b)
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, -3, 3, 0, nan, -0.5}
	for i, w := range want {
		g := out[0].Data[i]
		if g != w && !(math.IsNaN(float64(w)) && math.IsNaN(float64(g))) {
			t.Errorf("minimum[%d] = %v, want %v", i, g, w)
		}
	}
}

// TestMinimumGradient: finite differences on distinct values, and at ties
// the gradient goes to the first operand, as TensorFlow's minimum.
func TestMinimumGradient(t *testing.T) {
	distinct := func(_ int, r *rand.Rand) float32 { return float32(r.IntN(2000))*1e-2 - 10 }
	for _, c := range []gradCase{
		{name: "Same", shapes: []ops.Shape{{3, 4}, {3, 4}}, gen: distinct, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Minimum(x[0], x[1])
		}},
		{name: "Broadcast", shapes: []ops.Shape{{2, 3, 4}, {4}}, gen: distinct, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Minimum(x[0], x[1])
		}},
	} {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c) })
	}
	tr := ops.NewTrace(false, 0, 1)
	va := ops.NewVariable("a", ops.Shape{3}, []float32{1, 2, 3}, true)
	vb := ops.NewVariable("b", ops.Shape{3}, []float32{1, 0, 5}, true)
	y := ops.Minimum(tr.Read(va), tr.Read(vb))
	g, err := ops.Gradients(ops.Sum(y, false), []*ops.Variable{va, vb})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, g)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ga, gb := out[0].Data, out[1].Data; ga[0] != 1 || gb[0] != 0 || ga[1] != 0 || gb[1] != 1 || ga[2] != 1 || gb[2] != 0 {
		t.Errorf("gradients %v and %v, want [1 0 1] and [0 1 0]", ga, gb)
	}
}
