package datasets

import (
	"slices"
	"testing"

	"gorgonia.org/tensor"
)

func TestToFloat32(t *testing.T) {
	x := tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking([]uint8{0, 1, 2, 3, 4, 5, 6, 255}))
	got, err := ToFloat32(x, 1/255.0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Shape().Eq([]int{2, 2, 2, 1}) || got.Dtype() != tensor.Float32 {
		t.Fatalf("shape %v dtype %v", got.Shape(), got.Dtype())
	}
	scale := float32(1 / 255.0)
	for i, v := range got.Data().([]float32) {
		want := float32(x.Data().([]uint8)[i]) * scale
		if v != want {
			t.Errorf("element %d = %v, want %v", i, v, want)
		}
	}
	if x.Data().([]uint8)[7] != 255 || !x.Shape().Eq([]int{2, 2, 2}) {
		t.Error("input modified")
	}

	got, err = ToFloat32(x, 2, false)
	if err != nil || !got.Shape().Eq([]int{2, 2, 2}) || got.Data().([]float32)[3] != 6 {
		t.Errorf("without channel: %v %v", got, err)
	}

	f := tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3}))
	if got, err = ToFloat32(f, 0.5, false); err != nil || !slices.Equal(got.Data().([]float32), []float32{0.5, 1, 1.5}) {
		t.Errorf("float32 input: %v %v", got, err)
	}

	// A strided view is read in logical order.
	m := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]uint8{1, 2, 3, 4, 5, 6}))
	v, _ := m.Slice(nil, tensor.S(1))
	if got, err = ToFloat32(v.(*tensor.Dense), 1, false); err != nil || !slices.Equal(got.Data().([]float32), []float32{2, 5}) {
		t.Errorf("view: %v %v", got, err)
	}

	if _, err := ToFloat32(tensor.New(tensor.WithShape(2), tensor.WithBacking([]int64{1, 2})), 1, false); err == nil {
		t.Error("int64 accepted")
	}
	if _, err := ToFloat32(nil, 1, false); err == nil {
		t.Error("nil accepted")
	}
}

func TestLabelsToFloat32(t *testing.T) {
	for _, y := range []*tensor.Dense{
		tensor.New(tensor.WithShape(3), tensor.WithBacking([]uint8{0, 9, 3})),
		tensor.New(tensor.WithShape(3), tensor.WithBacking([]int64{0, 9, 3})),
		tensor.New(tensor.WithShape(3), tensor.WithBacking([]int32{0, 9, 3})),
		tensor.New(tensor.WithShape(3), tensor.WithBacking([]int{0, 9, 3})),
		tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{0, 9, 3})),
		tensor.New(tensor.WithShape(3, 1), tensor.WithBacking([]float32{0, 9, 3})),
	} {
		got, err := LabelsToFloat32(y)
		if err != nil {
			t.Fatalf("%v: %v", y.Dtype(), err)
		}
		if !got.Shape().Eq(y.Shape()) || !slices.Equal(got.Data().([]float32), []float32{0, 9, 3}) {
			t.Errorf("%v: got %v %v", y.Dtype(), got.Shape(), got.Data())
		}
	}
	if _, err := LabelsToFloat32(tensor.New(tensor.WithShape(1), tensor.WithBacking([]bool{true}))); err == nil {
		t.Error("bool accepted")
	}
	if _, err := LabelsToFloat32(nil); err == nil {
		t.Error("nil accepted")
	}
}
