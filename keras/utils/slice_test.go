package utils_test

import (
	"slices"
	"testing"

	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

func TestSlice(t *testing.T) {
	// 5 rows of 2 uint8 values: row i holds (10i, 10i+1).
	var data []uint8
	for i := range 5 {
		data = append(data, uint8(10*i), uint8(10*i+1))
	}
	x := tensor.New(tensor.WithShape(5, 2), tensor.WithBacking(data))
	for _, c := range []struct {
		lo, hi int
		rows   []int // the rows numpy's x[lo:hi] keeps
	}{
		{0, 3, []int{0, 1, 2}},
		{-2, utils.End, []int{3, 4}},
		{0, -2, []int{0, 1, 2}},
		{3, 100, []int{3, 4}},
		{-100, 1, []int{0}},
	} {
		y, err := utils.Slice(x, c.lo, c.hi)
		if err != nil {
			t.Fatalf("[%d:%d]: %v", c.lo, c.hi, err)
		}
		var want []uint8
		for _, r := range c.rows {
			want = append(want, data[2*r], data[2*r+1])
		}
		if got := y.Data().([]uint8); !slices.Equal(got, want) || y.Shape()[0] != len(c.rows) || y.Shape()[1] != 2 {
			t.Errorf("[%d:%d] = %v shape %v, want %v", c.lo, c.hi, got, y.Shape(), want)
		}
	}
	if _, err := utils.Slice(x, 4, 2); err == nil {
		t.Error("empty x[4:2]: no error")
	}
	if _, err := utils.Slice(nil, 0, 1); err == nil {
		t.Error("nil: no error")
	}
	if _, err := utils.Slice(tensor.New(tensor.FromScalar(float32(1))), 0, 1); err == nil {
		t.Error("scalar: no error")
	}
}

func TestReshape(t *testing.T) {
	x := tensor.New(tensor.WithShape(4, 3, 2), tensor.WithBacking([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}))
	y, err := utils.Reshape(x, -1, 6)
	if err != nil {
		t.Fatal(err)
	}
	if !y.Shape().Eq(tensor.Shape{4, 6}) || !x.Shape().Eq(tensor.Shape{4, 3, 2}) {
		t.Fatalf("shapes: result %v (want (4, 6)), input %v (want unchanged)", y.Shape(), x.Shape())
	}
	if v, _ := y.At(1, 0); v.(float32) != 6 {
		t.Errorf("y[1,0] = %v, want 6", v)
	}
	for _, bad := range [][]int{{-1, -1}, {5, -1}, {7}, {-2, 12}, {0, -1}} {
		if _, err := utils.Reshape(x, bad...); err == nil {
			t.Errorf("Reshape to %v: no error", bad)
		}
	}
	if _, err := utils.Reshape(nil, 1); err == nil {
		t.Error("nil: no error")
	}
}
