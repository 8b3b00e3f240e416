package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// groupedRef is a grouped convolution by loops (stride 1, "valid").
func groupedRef(x []float32, n, h, w, c int, k []float32, kh, kw, f, groups int) []float32 {
	oh, ow := h-kh+1, w-kw+1
	cg, fg := c/groups, f/groups
	out := make([]float32, n*oh*ow*f)
	for b := range n {
		for y := range oh {
			for xx := range ow {
				for o := range f {
					g := o / fg
					var s float64
					for ky := range kh {
						for kx := range kw {
							for i := range cg {
								ci := g*cg + i
								s += float64(x[((b*h+y+ky)*w+xx+kx)*c+ci]) * float64(k[((ky*kw+kx)*cg+i)*f+o])
							}
						}
					}
					out[((b*oh+y)*ow+xx)*f+o] = float32(s)
				}
			}
		}
	}
	return out
}

func TestGroupedConv2DValues(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	for _, c := range []struct{ c, f, groups int }{{6, 6, 6}, {4, 8, 4}, {6, 4, 2}, {4, 6, 1}, {6, 9, 3}} {
		const n, h, w, kh, kw = 2, 5, 4, 3, 2
		x := fill(n * h * w * c.c)
		k := fill(kh * kw * c.c / c.groups * c.f)
		tr := ops.NewTrace(false, 0, 0)
		y := ops.GroupedConv2D(tr.Constant(ops.Shape{n, h, w, c.c}, x), tr.Constant(ops.Shape{kh, kw, c.c / c.groups, c.f}, k), c.groups,
			ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"})
		got := evalAll(t, tr, y)[0]
		want := groupedRef(x, n, h, w, c.c, k, kh, kw, c.f, c.groups)
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-5 {
				t.Fatalf("%+v: [%d] = %v, want %v", c, i, got[i], want[i])
			}
		}
	}
}

func TestGroupedConv2DGradients(t *testing.T) {
	same := ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "same"}
	for _, c := range []struct {
		name   string
		x, w   ops.Shape
		groups int
		attrs  ops.Conv2DAttrs
	}{
		{"depthwise", ops.Shape{2, 5, 5, 3}, ops.Shape{3, 3, 1, 3}, 3, same},
		{"depthwise x2", ops.Shape{1, 4, 5, 2}, ops.Shape{3, 3, 1, 4}, 2, ops.Conv2DAttrs{Strides: [2]int{2, 2}, Padding: "same"}},
		{"two groups", ops.Shape{2, 6, 4, 4}, ops.Shape{3, 3, 2, 6}, 2, ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{2, 1}, Padding: "valid"}},
	} {
		checkGrad(t, gradCase{name: "GroupedConv2D " + c.name, shapes: []ops.Shape{c.x, c.w},
			build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.GroupedConv2D(x[0], x[1], c.groups, c.attrs) }})
	}
}

func TestGroupedConv2DErrors(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	x := tr.Input("x", ops.Shape{1, 4, 4, 6})
	a := ops.Conv2DAttrs{Strides: [2]int{1, 1}, Padding: "valid"}
	mustFail(t, "GroupedConv2D", func() { ops.GroupedConv2D(x, tr.Input("w", ops.Shape{3, 3, 2, 6}), 4, a) }, "must divide")
	mustFail(t, "GroupedConv2D", func() { ops.GroupedConv2D(x, tr.Input("w", ops.Shape{3, 3, 3, 6}), 3, a) }, "input channels per group")
	mustFail(t, "GroupedConv2D", func() { ops.GroupedConv2D(x, tr.Input("w", ops.Shape{3, 3, 6}), 1, a) }, "rank 4")
}
