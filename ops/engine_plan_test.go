package ops_test

import (
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestProgramBufferReuse checks the executor's buffer plan: step outputs
// share slabs once dead, outputs and hook inputs stay intact to the end,
// and the results match the plain computation.
func TestProgramBufferReuse(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Input("x", ops.Shape{1000})
	a := ops.Scale(x, 2)     // dead after b
	b := ops.AddScalar(a, 1) // read by the hook: must survive
	c := ops.Square(b)       // dead after d
	d := ops.Neg(c)          // dead after e
	e := ops.Add(d, ops.Scale(b, 3))
	var hooked []float32
	tr.AddHook(ops.Hook{Name: "h", Inputs: []ops.Tensor{b}, Run: func(_ ops.ReplicaContext, v []ops.Value) error {
		hooked = append([]float32(nil), v[0].Data...)
		return nil
	}})
	p, err := engine.Compile(tr, []ops.Tensor{e})
	if err != nil {
		t.Fatal(err)
	}
	if got, all := p.SlabFloats(), 6*1000; got >= all {
		t.Errorf("planned %d floats for 6 step outputs of 1000: no reuse", got)
	}
	in := make([]float32, 1000)
	for i := range in {
		in[i] = float32(i%17) - 8
	}
	for run := 0; run < 2; run++ {
		out, err := p.Run(engine.Single{}, []ops.Value{{Shape: ops.Shape{1000}, Data: in}})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range in {
			bv := 2*v + 1
			if want := -bv*bv + 3*bv; out[0].Data[i] != want {
				t.Fatalf("run %d: e[%d] = %v, want %v", run, i, out[0].Data[i], want)
			}
			if hooked[i] != bv {
				t.Fatalf("run %d: hook saw b[%d] = %v, want %v", run, i, hooked[i], bv)
			}
		}
	}
}

// TestProgramReshapeViews checks Reshape views: results through a view are
// right, and outputs, hook inputs and reshaped variables (which hooks may
// change in place after the steps) get copies.
func TestProgramReshapeViews(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Input("x", ops.Shape{2, 3})
	v := ops.NewVariable("v", ops.Shape{2, 3}, []float32{1, 2, 3, 4, 5, 6}, false)
	r := ops.Relu(x)
	rv := ops.Reshape(r, ops.Shape{3, 2})
	xv := ops.Reshape(x, ops.Shape{6})
	vv := ops.Reshape(tr.Read(v), ops.Shape{6})
	tr.AddHook(ops.Hook{Name: "bump", Inputs: []ops.Tensor{vv}, Run: func(_ ops.ReplicaContext, _ []ops.Value) error {
		d := v.Data(0)
		for i := range d {
			d[i] += 10
		}
		return nil
	}})
	inner := ops.Reshape(r, ops.Shape{6}) // a view read by a step only
	sum := ops.Sum(inner, false)
	p, err := engine.Compile(tr, []ops.Tensor{r, rv, xv, vv, sum})
	if err != nil {
		t.Fatal(err)
	}
	in := []float32{-1, 2, -3, 4, -5, 6}
	out, err := p.Run(engine.Single{}, []ops.Value{{Shape: ops.Shape{2, 3}, Data: in}})
	if err != nil {
		t.Fatal(err)
	}
	// Outputs never alias one another (hooks may write their inputs).
	if &out[0].Data[0] == &out[1].Data[0] || &out[2].Data[0] == &in[0] {
		t.Error("an output Reshape shares storage")
	}
	if &out[3].Data[0] == &v.Data(0)[0] {
		t.Error("Reshape of a variable shares its storage")
	}
	if out[4].Data[0] != 12 {
		t.Errorf("sum of relu through a view = %v, want 12", out[4].Data[0])
	}
	if !out[1].Shape.Equal(ops.Shape{3, 2}) || out[1].Data[1] != 2 || out[1].Data[0] != 0 {
		t.Errorf("reshaped relu = %v %v", out[1].Shape, out[1].Data)
	}
	if out[3].Data[0] != 1 || out[3].Data[5] != 6 {
		t.Errorf("reshaped variable = %v, want the value before the hook", out[3].Data)
	}
}
