package ops_test

import (
	"slices"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// stridedRef is the strided slice of a (rows, cols) matrix, by loops.
func stridedRef(x []float32, cols int, begin, count, step []int) []float32 {
	var out []float32
	for i := 0; i < count[0]; i++ {
		for j := 0; j < count[1]; j++ {
			out = append(out, x[(begin[0]+i*step[0])*cols+begin[1]+j*step[1]])
		}
	}
	return out
}

func TestStridedSliceValues(t *testing.T) {
	x := make([]float32, 4*5)
	for i := range x {
		x[i] = float32(i)
	}
	for _, c := range []struct{ begin, count, step []int }{
		{[]int{0, 0}, []int{2, 3}, []int{2, 2}},
		{[]int{3, 4}, []int{4, 5}, []int{-1, -1}},
		{[]int{1, 4}, []int{2, 2}, []int{1, -3}},
		{[]int{0, 1}, []int{4, 3}, []int{1, 1}}, // contiguous: Slice
	} {
		tr := ops.NewTrace(false, 0, 0)
		y := ops.StridedSlice(tr.Constant(ops.Shape{4, 5}, x), c.begin, c.count, c.step)
		if !y.Shape().Equal(ops.Shape(c.count)) {
			t.Errorf("%v: shape %v, want %v", c, y.Shape(), c.count)
		}
		got := evalAll(t, tr, y)[0]
		if want := stridedRef(x, 5, c.begin, c.count, c.step); !slices.Equal(got, want) {
			t.Errorf("%v: %v, want %v", c, got, want)
		}
	}
}

func TestStridedSliceErrors(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	x := tr.Constant(ops.Shape{4, 5}, make([]float32, 20))
	mustFail(t, "StridedSlice", func() { ops.StridedSlice(x, []int{0, 0}, []int{3, 1}, []int{2, 1}) }, "out of range")
	mustFail(t, "StridedSlice", func() { ops.StridedSlice(x, []int{0, 0}, []int{1, 1}, []int{0, 1}) }, "out of range")
	mustFail(t, "StridedSlice", func() { ops.StridedSlice(x, []int{0}, []int{1}, []int{1}) }, "one entry per dimension")
}

func TestStridedSliceGradients(t *testing.T) {
	checkGrad(t, gradCase{name: "StridedSlice", shapes: []ops.Shape{{3, 4, 5}},
		build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.StridedSlice(x[0], []int{2, 0, 4}, []int{2, 2, 2}, []int{-1, 3, -2})
		}})
}
