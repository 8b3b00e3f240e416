package engine

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestCastInPlace: a precision cast that is the last reader of a step
// output writes over it (Op.InPlaceOf); while the input is read after
// the cast, the two have buffers of their own. The values are the same
// either way.
func TestCastInPlace(t *testing.T) {
	const n = 1000
	x := make([]float32, n)
	for i := range x {
		x[i] = 1 + float32(i)/3
	}
	for _, c := range []struct {
		name     string
		readLate bool
	}{{"in place", false}, {"input read after", true}} {
		tr := ops.NewTrace(false, 0, 1)
		in := tr.Input("x", ops.Shape{n})
		y := ops.Square(in)
		z := ops.CastToBFloat16(y)
		out := ops.Neg(z)
		if c.readLate {
			out = ops.Sub(out, y)
		}
		p, err := Compile(tr, []ops.Tensor{out})
		if err != nil {
			t.Fatal(err)
		}
		vals, err := p.Run(Single{}, []ops.Value{{Shape: ops.Shape{n}, Data: x}})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals[0].Data {
			want := -ops.RoundBFloat16(x[i] * x[i])
			if c.readLate {
				want -= x[i] * x[i]
			}
			if v != want {
				t.Fatalf("%s: out[%d] = %g, want %g", c.name, i, v, want)
			}
		}
		shared := false
		for _, st := range p.Plan().Steps {
			if st.Kind == "CastToBFloat16" {
				shared = &p.bufs[st.Out][0] == &p.bufs[st.Ins[0]][0]
			}
		}
		if shared == c.readLate {
			t.Errorf("%s: the cast's output shares its input's storage: %v", c.name, shared)
		}
	}
}
