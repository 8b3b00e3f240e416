package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// naive index helpers: the value of in (shape is) broadcast to out at the
// flat index i of out.
func bcastAt(in []float32, is, out ops.Shape, i int) float32 {
	idx := make([]int, len(out))
	for d := len(out) - 1; d >= 0; d-- {
		idx[d] = i % out[d]
		i /= out[d]
	}
	off, st := 0, 1
	for d := len(is) - 1; d >= 0; d-- {
		od := len(out) - len(is) + d
		if is[d] != 1 {
			off += idx[od] * st
		}
		st *= is[d]
	}
	return in[off]
}

func randVals(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 0.5
	}
	return v
}

func runOne(t *testing.T, build func(tr *ops.Trace, xs []ops.Tensor) ops.Tensor, shapes []ops.Shape, vals [][]float32) []float32 {
	t.Helper()
	tr := ops.NewTrace(false, 0, 1)
	xs := make([]ops.Tensor, len(shapes))
	for i, s := range shapes {
		xs[i] = tr.Input(fmt.Sprint("x", i), s)
	}
	y := build(tr, xs)
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]ops.Value, len(shapes))
	for i, s := range shapes {
		in[i] = ops.Value{Shape: s, Data: vals[i]}
	}
	out, err := p.Run(engine.Single{}, in)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), out[0].Data...)
}

// TestBinaryBroadcastPatterns checks every broadcast pattern of the binary
// kernels (equal shapes, scalar, trailing vector, per-row scalar, general)
// against a naive per-element reference, on sizes that exercise the
// parallel split and the vector tails.
func TestBinaryBroadcastPatterns(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	pairs := [][2]ops.Shape{
		{s(3, 5), s(3, 5)}, {s(300, 257), s(300, 257)},
		{s(3, 5), s()}, {s(), s(3, 5)}, {s(200, 300), s(1)},
		{s(4, 6, 7), s(7)}, {s(7), s(4, 6, 7)}, {s(64, 8, 8, 64), s(64)}, {s(64, 8, 8, 64), s(1, 1, 1, 64)}, {s(2, 3, 4), s(3, 4)},
		{s(5, 9), s(5, 1)}, {s(5, 1), s(5, 9)}, {s(600, 100), s(600, 1)}, {s(2, 3, 4), s(2, 1, 1)},
		{s(2, 1, 4), s(3, 1)}, {s(4, 1, 5), s(1, 3, 1)}, {s(2, 3, 4), s(2, 1, 4)},
	}
	type op struct {
		name string
		f    func(a, b ops.Tensor) ops.Tensor
		ref  func(x, y float32) float32
	}
	opsList := []op{
		{"Add", ops.Add, func(x, y float32) float32 { return x + y }},
		{"Sub", ops.Sub, func(x, y float32) float32 { return x - y }},
		{"Mul", ops.Mul, func(x, y float32) float32 { return x * y }},
		{"Div", ops.Div, func(x, y float32) float32 { return x / y }},
		{"Maximum", ops.Maximum, func(x, y float32) float32 { return max(x, y) }},
	}
	r := rand.New(rand.NewPCG(3, 3))
	for _, pr := range pairs {
		out, _ := ops.BroadcastShape(pr[0], pr[1])
		a, b := randVals(r, pr[0].Size()), randVals(r, pr[1].Size())
		for _, o := range opsList {
			t.Run(fmt.Sprintf("%s%v%v", o.name, pr[0], pr[1]), func(t *testing.T) {
				got := runOne(t, func(_ *ops.Trace, xs []ops.Tensor) ops.Tensor { return o.f(xs[0], xs[1]) }, pr[:], [][]float32{a, b})
				for i := range out.Size() {
					want := o.ref(bcastAt(a, pr[0], out, i), bcastAt(b, pr[1], out, i))
					if math.Abs(float64(got[i]-want)) > 1e-6*math.Max(1, math.Abs(float64(want))) {
						t.Fatalf("[%d] = %v, want %v", i, got[i], want)
					}
				}
			})
		}
	}
}

// TestSumToBroadcastToPatterns checks SumTo and BroadcastTo for the block
// patterns of their fast paths and the general fallback.
func TestSumToBroadcastToPatterns(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	pairs := [][2]ops.Shape{ // {big, small}
		{s(64, 8, 8, 64), s(64)}, {s(64, 8, 8, 64), s(1, 1, 1, 64)}, {s(64, 8, 8, 64), s(64, 1, 1, 64)},
		{s(4, 6, 7), s(7)}, {s(5, 9), s(5, 1)}, {s(300, 300), s(300, 1)}, {s(3, 4), s()}, {s(70000), s(1)},
		{s(2, 3, 4), s(3, 1)}, {s(2, 3, 4), s(2, 1, 4)}, {s(2, 3, 4, 5), s(1, 3, 1, 5)}, {s(3, 1, 4), s(1, 1, 4)},
		{s(40000, 3), s(3)},
	}
	r := rand.New(rand.NewPCG(4, 4))
	for _, pr := range pairs {
		big, small := pr[0], pr[1]
		t.Run(fmt.Sprintf("SumTo%v%v", big, small), func(t *testing.T) {
			x := randVals(r, big.Size())
			got := runOne(t, func(_ *ops.Trace, xs []ops.Tensor) ops.Tensor { return ops.SumTo(xs[0], small) }, []ops.Shape{big}, [][]float32{x})
			want := make([]float64, small.Size())
			// scatter each element of x to the small index it sums into
			idxOf := func(i int) int {
				idx := make([]int, len(big))
				for d := len(big) - 1; d >= 0; d-- {
					idx[d] = i % big[d]
					i /= big[d]
				}
				off, st := 0, 1
				for d := len(small) - 1; d >= 0; d-- {
					if small[d] != 1 {
						off += idx[len(big)-len(small)+d] * st
					}
					st *= small[d]
				}
				return off
			}
			for i, v := range x {
				want[idxOf(i)] += float64(v)
			}
			for i := range want {
				if math.Abs(float64(got[i])-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
					t.Fatalf("[%d] = %v, want %v", i, got[i], want[i])
				}
			}
		})
		t.Run(fmt.Sprintf("BroadcastTo%v%v", small, big), func(t *testing.T) {
			x := randVals(r, small.Size())
			got := runOne(t, func(_ *ops.Trace, xs []ops.Tensor) ops.Tensor { return ops.BroadcastTo(xs[0], big) }, []ops.Shape{small}, [][]float32{x})
			for i := range big.Size() {
				if want := bcastAt(x, small, big, i); got[i] != want {
					t.Fatalf("[%d] = %v, want %v", i, got[i], want)
				}
			}
		})
	}
}

// TestUnaryKernels checks the slice kernels of the unary ops on a size that
// is split across workers and has a vector tail.
func TestUnaryKernels(t *testing.T) {
	n := 70001
	r := rand.New(rand.NewPCG(5, 5))
	x := randVals(r, n)
	cases := []struct {
		name string
		f    func(ops.Tensor) ops.Tensor
		ref  func(float32) float32
	}{
		{"Relu", ops.Relu, func(v float32) float32 { return max(v, 0) }},
		{"Neg", ops.Neg, func(v float32) float32 { return -v }},
		{"Scale", func(x ops.Tensor) ops.Tensor { return ops.Scale(x, 1.5) }, func(v float32) float32 { return 1.5 * v }},
		{"AddScalar", func(x ops.Tensor) ops.Tensor { return ops.AddScalar(x, -0.25) }, func(v float32) float32 { return v - 0.25 }},
		{"OneMinus", ops.OneMinus, func(v float32) float32 { return 1 - v }},
		{"Square", ops.Square, func(v float32) float32 { return v * v }},
		{"Abs", ops.Abs, func(v float32) float32 { return float32(math.Abs(float64(v))) }},
		{"Sign", ops.Sign, func(v float32) float32 {
			switch {
			case v > 0:
				return 1
			case v < 0:
				return -1
			}
			return 0
		}},
		{"Clip", func(x ops.Tensor) ops.Tensor { return ops.Clip(x, -0.1, 0.3) }, func(v float32) float32 { return min(max(v, -0.1), 0.3) }},
		{"Exp", ops.Exp, func(v float32) float32 { return float32(math.Exp(float64(v))) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runOne(t, func(_ *ops.Trace, xs []ops.Tensor) ops.Tensor { return c.f(xs[0]) }, []ops.Shape{{n}}, [][]float32{x})
			for i, v := range x {
				if want := c.ref(v); got[i] != want {
					t.Fatalf("[%d] f(%v) = %v, want %v", i, v, got[i], want)
				}
			}
		})
	}
}

// TestAvgPoolLarge checks AvgPool2D and its gradient on a batch large
// enough to be split over the cores, with channel counts off the vector
// width, against a naive per-element reference.
func TestAvgPoolLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		shape   ops.Shape
		attrs   ops.Pool2DAttrs
		oh, ow  int
		pt, pl_ int
	}{
		{ops.Shape{8, 16, 16, 67}, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"}, 8, 8, 0, 0},
		{ops.Shape{6, 15, 13, 33}, ops.Pool2DAttrs{Pool: [2]int{3, 3}, Strides: [2]int{2, 2}, Padding: "same"}, 8, 7, 1, 1},
	} {
		n, h, w, ch := c.shape[0], c.shape[1], c.shape[2], c.shape[3]
		x := randVals(r, c.shape.Size())
		dy := randVals(r, n*c.oh*c.ow*ch)
		got := runOne(t, func(_ *ops.Trace, xs []ops.Tensor) ops.Tensor { return ops.AvgPool2D(xs[0], c.attrs) }, []ops.Shape{c.shape}, [][]float32{x})
		// dx through the symbolic gradient of sum(AvgPool2D(x) * dy).
		tr := ops.NewTrace(true, 0, 1)
		xv := ops.NewVariable("x", c.shape, x, true)
		loss := ops.Sum(ops.Mul(ops.AvgPool2D(tr.Read(xv), c.attrs), tr.Constant(ops.Shape{n, c.oh, c.ow, ch}, dy)), false)
		grads, err := ops.Gradients(loss, []*ops.Variable{xv})
		if err != nil {
			t.Fatal(err)
		}
		p, err := engine.Compile(tr, grads)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		gotDx := outs[0].Data
		want := make([]float64, len(got))
		wantDx := make([]float64, len(x))
		for b := 0; b < n; b++ {
			for oy := 0; oy < c.oh; oy++ {
				for ox := 0; ox < c.ow; ox++ {
					var cells [][2]int
					for ky := 0; ky < c.attrs.Pool[0]; ky++ {
						for kx := 0; kx < c.attrs.Pool[1]; kx++ {
							iy, ix := oy*c.attrs.Strides[0]-c.pt+ky, ox*c.attrs.Strides[1]-c.pl_+kx
							if iy >= 0 && iy < h && ix >= 0 && ix < w {
								cells = append(cells, [2]int{iy, ix})
							}
						}
					}
					for k := 0; k < ch; k++ {
						oi := ((b*c.oh+oy)*c.ow+ox)*ch + k
						for _, cell := range cells {
							ii := ((b*h+cell[0])*w+cell[1])*ch + k
							want[oi] += float64(x[ii]) / float64(len(cells))
							wantDx[ii] += float64(dy[oi]) / float64(len(cells))
						}
					}
				}
			}
		}
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-5 {
				t.Fatalf("%v: y[%d] = %v, want %v", c.shape, i, got[i], want[i])
			}
		}
		for i := range wantDx {
			if math.Abs(float64(gotDx[i])-wantDx[i]) > 1e-5 {
				t.Fatalf("%v: dx[%d] = %v, want %v", c.shape, i, gotDx[i], wantDx[i])
			}
		}
	}
}
