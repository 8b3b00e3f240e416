package ops_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// evalAll compiles outs and runs them once, returning copies.
func evalAll(t *testing.T, tr *ops.Trace, outs ...ops.Tensor) [][]float32 {
	t.Helper()
	p, err := engine.Compile(tr, outs)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := make([][]float32, len(vals))
	for i, v := range vals {
		res[i] = append([]float32(nil), v.Data...)
	}
	return res
}

// mustFail runs f, which must panic with an *ops.Error of op op whose
// message mentions every part.
func mustFail(t *testing.T, op string, f func(), parts ...string) {
	t.Helper()
	defer func() {
		r := recover()
		e, ok := r.(*ops.Error)
		if !ok {
			t.Errorf("%s: recovered %v (%T), want an *ops.Error", op, r, r)
			return
		}
		if e.Op != op {
			t.Errorf("error %q is from op %q, want %q", e, e.Op, op)
		}
		for _, p := range parts {
			if !strings.Contains(e.Msg, p) {
				t.Errorf("error %q does not mention %q", e, p)
			}
		}
	}()
	f()
}

func ramp(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i) + 1
	}
	return out
}

func constant(tr *ops.Trace, s ops.Shape) ops.Tensor { return tr.Constant(s, ramp(s.Size())) }

func sameFloats(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
			t.Fatalf("%s[%d] = %v, want %v\ngot  %v\nwant %v", what, i, got[i], want[i], got, want)
		}
	}
}

// index is the row-major offset of (a, b, c, d) in shape s.
func index(s ops.Shape, idx ...int) int {
	off := 0
	for i, d := range s {
		off = off*d + idx[i]
	}
	return off
}

// unravel returns the multi-index of offset off in shape s.
func unravel(s ops.Shape, off int) []int {
	idx := make([]int, len(s))
	for i := len(s) - 1; i >= 0; i-- {
		idx[i] = off % s[i]
		off /= s[i]
	}
	return idx
}

func TestConcatValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	a := tr.Constant(ops.Shape{2, 2}, []float32{1, 2, 3, 4})
	b := tr.Constant(ops.Shape{2, 1}, []float32{5, 6})
	c := tr.Constant(ops.Shape{1, 2}, []float32{7, 8})
	y1, y2, y3 := ops.Concat(1, a, b), ops.Concat(-1, b, a), ops.Concat(0, a, c)
	for _, y := range []ops.Tensor{y1, y2} {
		if !y.Shape().Equal(ops.Shape{2, 3}) {
			t.Errorf("shape %v, want (2, 3)", y.Shape())
		}
	}
	if !y3.Shape().Equal(ops.Shape{3, 2}) {
		t.Errorf("shape %v, want (3, 2)", y3.Shape())
	}
	// Three inputs along the middle axis of rank 3, against a naive loop.
	xs := []ops.Shape{{2, 1, 3}, {2, 4, 3}, {2, 2, 3}}
	var ins []ops.Tensor
	for _, s := range xs {
		ins = append(ins, constant(tr, s))
	}
	y4 := ops.Concat(1, ins...)
	want4 := make([]float32, 0, 2*7*3)
	for i := 0; i < 2; i++ {
		for _, s := range xs {
			data := ramp(s.Size())
			for j := 0; j < s[1]; j++ {
				want4 = append(want4, data[(i*s[1]+j)*3:(i*s[1]+j+1)*3]...)
			}
		}
	}
	got := evalAll(t, tr, y1, y2, y3, y4)
	sameFloats(t, "concat axis 1", got[0], []float32{1, 2, 5, 3, 4, 6})
	sameFloats(t, "concat axis -1", got[1], []float32{5, 1, 2, 6, 3, 4})
	sameFloats(t, "concat axis 0", got[2], []float32{1, 2, 3, 4, 7, 8})
	sameFloats(t, "concat rank 3", got[3], want4)
	if !y4.Shape().Equal(ops.Shape{2, 7, 3}) {
		t.Errorf("shape %v, want (2, 7, 3)", y4.Shape())
	}
	if ops.Concat(0, a).Node() != a.Node() {
		t.Error("Concat of one input is not that input")
	}
}

func TestConcatErrors(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	a, b := constant(tr, ops.Shape{2, 3}), constant(tr, ops.Shape{3, 3})
	mustFail(t, "Concat", func() { ops.Concat(0) }, "at least one")
	mustFail(t, "Concat", func() { ops.Concat(1, a, b) }, "(2, 3)", "(3, 3)")
	mustFail(t, "Concat", func() { ops.Concat(0, a, constant(tr, ops.Shape{3})) }, "rank")
	mustFail(t, "Concat", func() { ops.Concat(2, a, a) }, "axis 2")
	mustFail(t, "Concat", func() { ops.Concat(-3, a, a) }, "axis -3")
	mustFail(t, "Concat", func() { ops.Concat(0, tr.Scalar(1), tr.Scalar(2)) }, "scalars")
	other := ops.NewTrace(false, 0, 1)
	mustFail(t, "Concat", func() { ops.Concat(0, a, constant(other, ops.Shape{2, 3})) }, "different traces")
}

func TestSliceAndPadValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	xs := ops.Shape{3, 4, 5}
	x := constant(tr, xs)
	begin, size := []int{1, 0, 2}, []int{2, -1, 2}
	sl := ops.Slice(x, begin, size)
	if !sl.Shape().Equal(ops.Shape{2, 4, 2}) {
		t.Fatalf("slice shape %v", sl.Shape())
	}
	pads := [][2]int{{1, 0}, {0, 2}, {3, 1}}
	pd := ops.Pad(x, pads)
	ps := ops.Shape{4, 6, 9}
	if !pd.Shape().Equal(ps) {
		t.Fatalf("pad shape %v", pd.Shape())
	}
	if ops.Slice(x, []int{0, 0, 0}, []int{-1, 4, -1}).Node() != x.Node() || ops.Pad(x, make([][2]int, 3)).Node() != x.Node() {
		t.Error("a full slice or a zero padding is not the input itself")
	}
	got := evalAll(t, tr, sl, pd)
	data := ramp(xs.Size())
	var wantSl []float32
	for i := 1; i < 3; i++ {
		for j := 0; j < 4; j++ {
			for k := 2; k < 4; k++ {
				wantSl = append(wantSl, data[index(xs, i, j, k)])
			}
		}
	}
	sameFloats(t, "slice", got[0], wantSl)
	wantPd := make([]float32, ps.Size())
	for o := range wantPd {
		idx := unravel(ps, o)
		i, j, k := idx[0]-pads[0][0], idx[1]-pads[1][0], idx[2]-pads[2][0]
		if i >= 0 && i < 3 && j >= 0 && j < 4 && k >= 0 && k < 5 {
			wantPd[o] = data[index(xs, i, j, k)]
		}
	}
	sameFloats(t, "pad", got[1], wantPd)

	mustFail(t, "Slice", func() { ops.Slice(x, []int{0, 0}, []int{1, 1}) }, "one entry per dimension")
	mustFail(t, "Slice", func() { ops.Slice(x, []int{0, 3, 0}, []int{1, 2, 1}) }, "out of range")
	mustFail(t, "Slice", func() { ops.Slice(x, []int{-1, 0, 0}, []int{1, 1, 1}) }, "out of range")
	mustFail(t, "Slice", func() { ops.Slice(x, []int{0, 0, 0}, []int{1, 0, 1}) }, "empty")
	mustFail(t, "Pad", func() { ops.Pad(x, [][2]int{{1, 1}}) }, "1 paddings", "rank-3")
	mustFail(t, "Pad", func() { ops.Pad(x, [][2]int{{0, 0}, {0, -1}, {0, 0}}) }, "non-negative")
}

func TestReverseValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	xs := ops.Shape{2, 3, 4}
	x := constant(tr, xs)
	var outs []ops.Tensor
	for a := 0; a < 3; a++ {
		outs = append(outs, ops.Reverse(x, a))
	}
	outs = append(outs, ops.Reverse(x, -1))
	got := evalAll(t, tr, outs...)
	data := ramp(xs.Size())
	for a := 0; a < 4; a++ {
		ax := a
		if a == 3 {
			ax = 2 // Reverse(x, -1)
		}
		want := make([]float32, xs.Size())
		for o := range want {
			idx := unravel(xs, o)
			idx[ax] = xs[ax] - 1 - idx[ax]
			want[o] = data[index(xs, idx...)]
		}
		sameFloats(t, fmt.Sprint("reverse axis ", a), got[a], want)
	}
	if ops.Reverse(constant(tr, ops.Shape{3, 1}), 1).Shape().Size() != 3 {
		t.Error("reverse of a size-1 axis")
	}
	mustFail(t, "Reverse", func() { ops.Reverse(x, 3) }, "axis 3")
}

func TestMaxValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	xs := ops.Shape{2, 3, 4}
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]float32, xs.Size())
	for i := range data {
		data[i] = float32(r.NormFloat64())
	}
	x := tr.Constant(xs, data)
	type tc struct {
		axes  []int
		keep  bool
		shape ops.Shape
	}
	cases := []tc{
		{[]int{1, 2}, false, ops.Shape{2}},
		{[]int{-1}, true, ops.Shape{2, 3, 1}},
		{[]int{0}, false, ops.Shape{3, 4}},
		{nil, false, ops.Shape{}},
		{nil, true, ops.Shape{1, 1, 1}},
	}
	var outs []ops.Tensor
	for _, c := range cases {
		y := ops.Max(x, c.keep, c.axes...)
		if !y.Shape().Equal(c.shape) {
			t.Errorf("Max(%v, keep=%v) shape %v, want %v", c.axes, c.keep, y.Shape(), c.shape)
		}
		outs = append(outs, y)
	}
	got := evalAll(t, tr, outs...)
	for i, c := range cases {
		reduced := map[int]bool{}
		for _, a := range c.axes {
			reduced[(a+3)%3] = true
		}
		if c.axes == nil {
			reduced = map[int]bool{0: true, 1: true, 2: true}
		}
		keep := xs.Clone()
		for a := range keep {
			if reduced[a] {
				keep[a] = 1
			}
		}
		want := make([]float32, keep.Size())
		for j := range want {
			want[j] = float32(math.Inf(-1))
		}
		for o, v := range data {
			idx := unravel(xs, o)
			for a := range idx {
				if reduced[a] {
					idx[a] = 0
				}
			}
			j := index(keep, idx...)
			want[j] = max(want[j], v)
		}
		sameFloats(t, fmt.Sprintf("Max(%v)", c.axes), got[i], want)
	}
	mustFail(t, "Max", func() { ops.Max(x, false, 3) }, "axis 3")
}

// The gradient of Max goes to the first of tied maxima.
func TestMaxGradientTies(t *testing.T) {
	v := ops.NewVariable("x", ops.Shape{2, 3}, []float32{1, 3, 3, 2, 2, 1}, true)
	tr := ops.NewTrace(true, 0, 1)
	y := ops.Max(tr.Read(v), false, 1)
	g, err := ops.Gradients(ops.Sum(y, false), []*ops.Variable{v})
	if err != nil {
		t.Fatal(err)
	}
	got := evalAll(t, tr, y, g[0])
	sameFloats(t, "max", got[0], []float32{3, 2})
	sameFloats(t, "gradient", got[1], []float32{0, 1, 0, 1, 0, 0})
}

func TestGatherValues(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	params := constant(tr, ops.Shape{4, 3})
	y := ops.Gather(params, tr.Constant(ops.Shape{2, 2}, []float32{3, 0, 1.9, 3}))
	if !y.Shape().Equal(ops.Shape{2, 2, 3}) {
		t.Fatalf("shape %v, want (2, 2, 3)", y.Shape())
	}
	y0 := ops.Gather(params, tr.Scalar(2))
	if !y0.Shape().Equal(ops.Shape{3}) {
		t.Fatalf("scalar index: shape %v, want (3,)", y0.Shape())
	}
	got := evalAll(t, tr, y, y0)
	sameFloats(t, "gather", got[0], []float32{10, 11, 12, 1, 2, 3, 4, 5, 6, 10, 11, 12})
	sameFloats(t, "gather scalar", got[1], []float32{7, 8, 9})

	mustFail(t, "Gather", func() { ops.Gather(constant(tr, ops.Shape{4}), tr.Scalar(0)) }, "rank 2")
	for _, bad := range []float32{4, -1, float32(math.NaN()), float32(math.Inf(1))} {
		tr := ops.NewTrace(false, 0, 1)
		y := ops.Gather(constant(tr, ops.Shape{4, 3}), tr.Constant(ops.Shape{3}, []float32{0, bad, 1}))
		p, err := engine.Compile(tr, []ops.Tensor{y})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Run(engine.Single{}, nil)
		var e *ops.Error
		if !errors.As(err, &e) || e.Op != "Gather" || !strings.Contains(e.Msg, "out of range") || !strings.Contains(e.Msg, "position 1") {
			t.Errorf("id %v: error %v, want an *ops.Error of Gather saying out of range at position 1", bad, err)
		}
	}
}

// The gradient of Gather adds the rows of dy into the rows they came from;
// the ids get none.
func TestGatherGradient(t *testing.T) {
	pv := ops.NewVariable("p", ops.Shape{3, 2}, ramp(6), true)
	iv := ops.NewVariable("ids", ops.Shape{4}, []float32{2, 0, 2, 2}, true)
	tr := ops.NewTrace(true, 0, 1)
	y := ops.Gather(tr.Read(pv), tr.Read(iv))
	w := tr.Constant(ops.Shape{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8})
	g, err := ops.Gradients(ops.Sum(ops.Mul(y, w), false), []*ops.Variable{pv, iv})
	if err != nil {
		t.Fatal(err)
	}
	if !g[1].IsNone() {
		t.Error("the ids got a gradient")
	}
	got := evalAll(t, tr, g[0])
	sameFloats(t, "dparams", got[0], []float32{3, 4, 0, 0, 1 + 5 + 7, 2 + 6 + 8})
}

// depthwiseRef is a naive depthwise convolution in float64.
func depthwiseRef(x []float32, xs ops.Shape, k []float32, ks ops.Shape, stride, dil [2]int, padding string) ([]float32, ops.Shape) {
	n, h, w, c := xs[0], xs[1], xs[2], xs[3]
	kh, kw, m := ks[0], ks[1], ks[3]
	oh, pt, _ := ops.ConvOutputSize(h, kh, stride[0], dil[0], padding)
	ow, pl, _ := ops.ConvOutputSize(w, kw, stride[1], dil[1], padding)
	os := ops.Shape{n, oh, ow, c * m}
	out := make([]float32, os.Size())
	for b := 0; b < n; b++ {
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				for ci := 0; ci < c; ci++ {
					for mi := 0; mi < m; mi++ {
						var s float64
						for ky := 0; ky < kh; ky++ {
							for kx := 0; kx < kw; kx++ {
								iy, ix := oy*stride[0]-pt+ky*dil[0], ox*stride[1]-pl+kx*dil[1]
								if iy >= 0 && iy < h && ix >= 0 && ix < w {
									s += float64(x[index(xs, b, iy, ix, ci)]) * float64(k[index(ks, ky, kx, ci, mi)])
								}
							}
						}
						out[index(os, b, oy, ox, ci*m+mi)] = float32(s)
					}
				}
			}
		}
	}
	return out, os
}

func TestDepthwiseConv2DValues(t *testing.T) {
	type tc struct {
		xs, ks      ops.Shape
		stride, dil [2]int
		padding     string
	}
	cases := []tc{
		{ops.Shape{2, 5, 6, 3}, ops.Shape{3, 3, 3, 1}, [2]int{1, 1}, [2]int{1, 1}, "valid"},
		{ops.Shape{1, 5, 5, 2}, ops.Shape{3, 2, 2, 3}, [2]int{1, 1}, [2]int{1, 1}, "same"},
		{ops.Shape{2, 7, 6, 2}, ops.Shape{3, 3, 2, 2}, [2]int{2, 2}, [2]int{1, 1}, "same"},
		{ops.Shape{1, 8, 7, 1}, ops.Shape{4, 4, 1, 2}, [2]int{3, 2}, [2]int{1, 1}, "valid"},
		{ops.Shape{1, 7, 7, 2}, ops.Shape{3, 3, 2, 2}, [2]int{1, 1}, [2]int{2, 3}, "same"},
		{ops.Shape{3, 4, 4, 4}, ops.Shape{1, 1, 4, 2}, [2]int{1, 1}, [2]int{1, 1}, "valid"},
	}
	for i, c := range cases {
		r := rand.New(rand.NewPCG(uint64(i), 9))
		x := make([]float32, c.xs.Size())
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		k := make([]float32, c.ks.Size())
		for j := range k {
			k[j] = float32(r.NormFloat64())
		}
		tr := ops.NewTrace(false, 0, 1)
		y := ops.DepthwiseConv2D(tr.Constant(c.xs, x), tr.Constant(c.ks, k), ops.Conv2DAttrs{Strides: c.stride, Dilations: c.dil, Padding: c.padding})
		want, ws := depthwiseRef(x, c.xs, k, c.ks, c.stride, c.dil, c.padding)
		if !y.Shape().Equal(ws) {
			t.Errorf("case %d: shape %v, want %v", i, y.Shape(), ws)
			continue
		}
		got := evalAll(t, tr, y)[0]
		for j := range want {
			if math.Abs(float64(got[j]-want[j])) > 1e-4*(1+math.Abs(float64(want[j]))) {
				t.Errorf("case %d: y[%d] = %v, want %v", i, j, got[j], want[j])
				break
			}
		}
	}
	tr := ops.NewTrace(false, 0, 1)
	x := constant(tr, ops.Shape{1, 4, 4, 2})
	mustFail(t, "DepthwiseConv2D", func() {
		ops.DepthwiseConv2D(x, constant(tr, ops.Shape{3, 3, 2}), ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
	}, "rank 4")
	mustFail(t, "DepthwiseConv2D", func() {
		ops.DepthwiseConv2D(x, constant(tr, ops.Shape{3, 3, 3, 1}), ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
	}, "2 channels", "expects 3")
	mustFail(t, "DepthwiseConv2D", func() {
		ops.DepthwiseConv2D(x, constant(tr, ops.Shape{5, 5, 2, 1}), ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
	}, "smaller than")
	mustFail(t, "DepthwiseConv2D", func() {
		ops.DepthwiseConv2D(constant(tr, ops.Shape{4, 4, 2}), constant(tr, ops.Shape{1, 1, 2, 1}), ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
	}, "rank-4")
}

// randomRun traces op on x (N, H, W, C) with distinct values, and returns,
// for two replays, the output and the gradient of sum(y * R) with respect
// to x.
func randomRun(t *testing.T, xs ops.Shape, op func(ops.Tensor) ops.Tensor) (x, r []float32, ys, gs [2][]float32, outShape ops.Shape) {
	t.Helper()
	x = ramp(xs.Size())
	v := ops.NewVariable("x", xs, x, true)
	tr := ops.NewTrace(true, 0, 11)
	y := op(tr.Read(v))
	outShape = y.Shape()
	r = make([]float32, outShape.Size())
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range r {
		r[i] = float32(rng.IntN(7) - 3)
	}
	g, err := ops.Gradients(ops.Sum(ops.Mul(y, tr.Constant(outShape, r)), false), []*ops.Variable{v})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{y, g[0]})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		vals, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ys[i] = append([]float32(nil), vals[0].Data...)
		gs[i] = append([]float32(nil), vals[1].Data...)
	}
	return x, r, ys, gs, outShape
}

// checkPixelMaps checks that each output image of y is one of the
// candidate transforms of its input image (each a function from output
// pixel (y, x) to input pixel (sy, sx), ok=false for the fill value fill),
// that the gradient g is the matching scatter of R, and returns which
// candidate each image matched (the first that fits).
func checkPixelMaps(t *testing.T, xs, os ops.Shape, x, y, r, g []float32, fill float32, cands []func(y, x int) (int, int, bool)) []int {
	t.Helper()
	n, c := xs[0], xs[3]
	oh, ow := os[1], os[2]
	which := make([]int, n)
	wantG := make([]float32, len(x))
	for b := 0; b < n; b++ {
		which[b] = -1
	cands:
		for k, f := range cands {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					sy, sx, ok := f(oy, ox)
					for ch := 0; ch < c; ch++ {
						want := fill
						if ok {
							want = x[index(xs, b, sy, sx, ch)]
						}
						if y[index(os, b, oy, ox, ch)] != want {
							continue cands
						}
					}
				}
			}
			which[b] = k
			break
		}
		if which[b] < 0 {
			t.Fatalf("image %d is none of the allowed transforms", b)
		}
		f := cands[which[b]]
		for oy := 0; oy < oh; oy++ {
			for ox := 0; ox < ow; ox++ {
				if sy, sx, ok := f(oy, ox); ok {
					for ch := 0; ch < c; ch++ {
						wantG[index(xs, b, sy, sx, ch)] += r[index(os, b, oy, ox, ch)]
					}
				}
			}
		}
	}
	sameFloats(t, "gradient", g, wantG)
	return which
}

// within4sd reports whether count out of n is within 4 standard deviations
// of a binomial with probability p.
func within4sd(count, n int, p float64) bool {
	return math.Abs(float64(count)-float64(n)*p) <= 4*math.Sqrt(float64(n)*p*(1-p))
}

func TestRandomFlip(t *testing.T) {
	const n = 400
	xs := ops.Shape{n, 3, 4, 2}
	h, w := xs[1], xs[2]
	id := func(y, x int) (int, int, bool) { return y, x, true }
	hf := func(y, x int) (int, int, bool) { return y, w - 1 - x, true }
	vf := func(y, x int) (int, int, bool) { return h - 1 - y, x, true }
	hv := func(y, x int) (int, int, bool) { return h - 1 - y, w - 1 - x, true }
	for _, mode := range []struct {
		h, v  bool
		cands []func(y, x int) (int, int, bool)
	}{
		{true, false, []func(y, x int) (int, int, bool){id, hf}},
		{false, true, []func(y, x int) (int, int, bool){id, vf}},
		{true, true, []func(y, x int) (int, int, bool){id, hf, vf, hv}},
	} {
		x, r, ys, gs, os := randomRun(t, xs, func(x ops.Tensor) ops.Tensor { return ops.RandomFlip(x, mode.h, mode.v) })
		if !os.Equal(xs) {
			t.Fatalf("shape %v, want %v", os, xs)
		}
		var draws [2][]int
		for i := range 2 {
			draws[i] = checkPixelMaps(t, xs, os, x, ys[i], r, gs[i], 0, mode.cands)
			counts := make([]int, len(mode.cands))
			for _, k := range draws[i] {
				counts[k]++
			}
			for k, cnt := range counts {
				if !within4sd(cnt, n, 1/float64(len(mode.cands))) {
					t.Errorf("h=%v v=%v: transform %d drawn %d times of %d", mode.h, mode.v, k, cnt, n)
				}
			}
		}
		if fmt.Sprint(draws[0]) == fmt.Sprint(draws[1]) {
			t.Errorf("h=%v v=%v: two replays drew the same flips", mode.h, mode.v)
		}
	}
	tr := ops.NewTrace(true, 0, 1)
	mustFail(t, "RandomFlip", func() { ops.RandomFlip(constant(tr, xs), false, false) }, "neither")
	mustFail(t, "RandomFlip", func() { ops.RandomFlip(constant(tr, ops.Shape{3, 4, 2}), true, false) }, "rank-4")
}

func TestRandomCrop(t *testing.T) {
	const n = 300
	xs := ops.Shape{n, 5, 6, 2}
	ch, cw := 3, 4
	var cands []func(y, x int) (int, int, bool)
	for oy := 0; oy <= xs[1]-ch; oy++ {
		for ox := 0; ox <= xs[2]-cw; ox++ {
			cands = append(cands, func(y, x int) (int, int, bool) { return y + oy, x + ox, true })
		}
	}
	x, r, ys, gs, os := randomRun(t, xs, func(x ops.Tensor) ops.Tensor { return ops.RandomCrop(x, ch, cw) })
	if !os.Equal(ops.Shape{n, ch, cw, 2}) {
		t.Fatalf("shape %v", os)
	}
	var draws [2][]int
	for i := range 2 {
		draws[i] = checkPixelMaps(t, xs, os, x, ys[i], r, gs[i], 0, cands)
		counts := make([]int, len(cands))
		for _, k := range draws[i] {
			counts[k]++
		}
		for k, cnt := range counts {
			if !within4sd(cnt, n, 1/float64(len(cands))) {
				t.Errorf("offset %d drawn %d times of %d", k, cnt, n)
			}
		}
	}
	if fmt.Sprint(draws[0]) == fmt.Sprint(draws[1]) {
		t.Error("two replays drew the same offsets")
	}
	tr := ops.NewTrace(true, 0, 1)
	in := constant(tr, ops.Shape{2, 5, 6, 1})
	if ops.RandomCrop(in, 5, 6).Node() != in.Node() {
		t.Error("a crop of the whole image is not the input")
	}
	mustFail(t, "RandomCrop", func() { ops.RandomCrop(in, 6, 6) }, "6x6")
	mustFail(t, "RandomCrop", func() { ops.RandomCrop(in, 0, 2) }, "0x2")
}

// fillRef maps position i of an axis of length n by Keras' fill modes,
// bouncing step by step for "reflect" (an edge pixel repeats, then the
// image runs backwards).
func fillRef(mode string, i, n int) (int, bool) {
	switch mode {
	case "constant":
		return i, i >= 0 && i < n
	case "nearest":
		return min(max(i, 0), n-1), true
	case "wrap":
		return ((i % n) + n) % n, true
	}
	for i < 0 || i >= n {
		if i < 0 {
			i = -i - 1
		} else {
			i = 2*n - 1 - i
		}
	}
	return i, true
}

func TestRandomTranslation(t *testing.T) {
	const n = 300
	xs := ops.Shape{n, 4, 5, 2}
	h, w := xs[1], xs[2]
	maxShift := [2]int{2, 3}
	for _, mode := range []string{"constant", "reflect", "wrap", "nearest"} {
		var cands []func(y, x int) (int, int, bool)
		var shifts [][2]int
		for dy := -maxShift[0]; dy <= maxShift[0]; dy++ {
			for dx := -maxShift[1]; dx <= maxShift[1]; dx++ {
				shifts = append(shifts, [2]int{dy, dx})
				cands = append(cands, func(y, x int) (int, int, bool) {
					sy, oky := fillRef(mode, y-dy, h)
					sx, okx := fillRef(mode, x-dx, w)
					return sy, sx, oky && okx
				})
			}
		}
		x, r, ys, gs, os := randomRun(t, xs, func(x ops.Tensor) ops.Tensor {
			return ops.RandomTranslation(x, maxShift, mode, -0.5)
		})
		if !os.Equal(xs) {
			t.Fatalf("%s: shape %v", mode, os)
		}
		var draws [2][]int
		for i := range 2 {
			draws[i] = checkPixelMaps(t, xs, os, x, ys[i], r, gs[i], -0.5, cands)
		}
		if fmt.Sprint(draws[0]) == fmt.Sprint(draws[1]) {
			t.Errorf("%s: two replays drew the same shifts", mode)
		}
		if mode != "constant" {
			continue
		}
		// With a constant fill every shift gives a different image: check
		// that each is drawn about equally often.
		counts := make([]int, len(cands))
		for _, k := range draws[0] {
			counts[k]++
		}
		for k, cnt := range counts {
			if !within4sd(cnt, n, 1/float64(len(cands))) {
				t.Errorf("shift %v drawn %d times of %d", shifts[k], cnt, n)
			}
		}
	}
	tr := ops.NewTrace(true, 0, 1)
	in := constant(tr, ops.Shape{2, 4, 4, 1})
	if ops.RandomTranslation(in, [2]int{0, 0}, "reflect", 0).Node() != in.Node() {
		t.Error("a translation by zero is not the input")
	}
	mustFail(t, "RandomTranslation", func() { ops.RandomTranslation(in, [2]int{1, 1}, "mirror", 0) }, `"mirror"`)
	mustFail(t, "RandomTranslation", func() { ops.RandomTranslation(in, [2]int{-1, 1}, "constant", 0) }, "non-negative")
}
