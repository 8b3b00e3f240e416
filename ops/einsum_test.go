package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// naiveEinsum evaluates a fully expanded equation (one letter per axis,
// no "...") by looping over every assignment of the letters.
func naiveEinsum(ta, tb, to string, a []float32, as ops.Shape, b []float32, bs ops.Shape) ([]float64, ops.Shape) {
	size := map[byte]int{}
	for i := range ta {
		size[ta[i]] = as[i]
	}
	for i := range tb {
		size[tb[i]] = bs[i]
	}
	var letters []byte
	for l := range size {
		letters = append(letters, l)
	}
	outShape := make(ops.Shape, len(to))
	for i := range to {
		outShape[i] = size[to[i]]
	}
	out := make([]float64, outShape.Size())
	idx := map[byte]int{}
	flat := func(t string, s ops.Shape) int {
		o := 0
		for i := range t {
			o = o*s[i] + idx[t[i]]
		}
		return o
	}
	var rec func(k int)
	rec = func(k int) {
		if k == len(letters) {
			out[flat(to, outShape)] += float64(a[flat(ta, as)]) * float64(b[flat(tb, bs)])
			return
		}
		for v := range size[letters[k]] {
			idx[letters[k]] = v
			rec(k + 1)
		}
	}
	rec(0)
	return out, outShape
}

var einsumCases = []struct {
	eq, ta, tb, to string // eq as given; the same with "..." spelled out
	as, bs         ops.Shape
}{
	{"ab,bc->ac", "ab", "bc", "ac", ops.Shape{3, 4}, ops.Shape{4, 2}},
	{"abc,cd->abd", "abc", "cd", "abd", ops.Shape{2, 3, 4}, ops.Shape{4, 5}},
	{"abc,cde->abde", "abc", "cde", "abde", ops.Shape{2, 3, 4}, ops.Shape{4, 2, 3}},
	{"abcd,cde->abe", "abcd", "cde", "abe", ops.Shape{2, 3, 2, 4}, ops.Shape{2, 4, 3}},
	{"...b,bc->...c", "xyb", "bc", "xyc", ops.Shape{2, 3, 4}, ops.Shape{4, 5}},
	{"ab...,bc->ac...", "abx", "bc", "acx", ops.Shape{2, 3, 4}, ops.Shape{3, 2}},
	{"abc,acd->abd", "abc", "acd", "abd", ops.Shape{2, 3, 4}, ops.Shape{2, 4, 2}}, // batch axis a
	{"abc,bd->cda", "abc", "bd", "cda", ops.Shape{2, 3, 2}, ops.Shape{3, 4}},      // output transposed
	{"ab,cd->abd", "ab", "cd", "abd", ops.Shape{2, 3}, ops.Shape{4, 2}},           // c summed alone
	{"abc,cd->bad", "abc", "cd", "bad", ops.Shape{2, 3, 4}, ops.Shape{4, 5}},
}

func TestEinsumValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range einsumCases {
		a := make([]float32, c.as.Size())
		b := make([]float32, c.bs.Size())
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		tr := ops.NewTrace(false, 0, 1)
		y := ops.Einsum(c.eq, tr.Constant(c.as, a), tr.Constant(c.bs, b))
		want, ws := naiveEinsum(c.ta, c.tb, c.to, a, c.as, b, c.bs)
		if !y.Shape().Equal(ws) {
			t.Fatalf("%s: shape %v, want %v", c.eq, y.Shape(), ws)
		}
		p, err := engine.Compile(tr, []ops.Tensor{y})
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if math.Abs(float64(out[0].Data[i])-w) > 1e-5*math.Max(1, math.Abs(w)) {
				t.Errorf("%s[%d] = %v, want %v", c.eq, i, out[0].Data[i], w)
				break
			}
		}
	}
}

func TestEinsumGradients(t *testing.T) {
	for _, c := range einsumCases {
		eq := c.eq
		t.Run(eq, func(t *testing.T) {
			checkGrad(t, gradCase{name: eq, shapes: []ops.Shape{c.as, c.bs}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
				return ops.Einsum(eq, x[0], x[1])
			}})
		})
	}
}

func TestEinsumErrors(t *testing.T) {
	for _, c := range []struct {
		eq     string
		as, bs ops.Shape
	}{
		{"ab,bc", ops.Shape{2, 3}, ops.Shape{3, 2}},        // no output
		{"ab,bc->ad", ops.Shape{2, 3}, ops.Shape{3, 2}},    // d in neither
		{"ab,bc->ac", ops.Shape{2, 3}, ops.Shape{4, 2}},    // b 3 and 4
		{"aa,ab->b", ops.Shape{2, 2}, ops.Shape{2, 3}},     // diagonal
		{"abc,cd->ad", ops.Shape{2, 3}, ops.Shape{3, 2}},   // rank
		{"ab,bc->acc", ops.Shape{2, 3}, ops.Shape{3, 2}},   // output twice
		{"a1,1c->ac", ops.Shape{2, 3}, ops.Shape{3, 2}},    // not a letter
		{"...b,bc->c", ops.Shape{2, 3}, ops.Shape{3, 2}},   // "..." dropped
		{"ab,bc,cd->ad", ops.Shape{2, 3}, ops.Shape{3, 2}}, // three operands
	} {
		func() {
			defer func() {
				if e, _ := recover().(*ops.Error); e == nil {
					t.Errorf("%s on %v and %v: no *ops.Error", c.eq, c.as, c.bs)
				}
			}()
			tr := ops.NewTrace(false, 0, 1)
			ops.Einsum(c.eq, tr.Constant(c.as, make([]float32, c.as.Size())), tr.Constant(c.bs, make([]float32, c.bs.Size())))
		}()
	}
}
