package datasets

import (
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

func TestFromTensorSliceMap(t *testing.T) {
	img := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6}))
	lab := tensor.New(tensor.WithShape(3), tensor.WithBacking([]int64{7, 8, 9}))
	ds, keys, err := FromTensorSliceMap(map[string]*tensor.Dense{"label": lab, "image": img})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, ",") != "image,label" {
		t.Errorf("keys %v, want [image label]", keys)
	}
	es, err := collect(t, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || ds.Cardinality() != 3 {
		t.Fatalf("%d elements, cardinality %d", len(es), ds.Cardinality())
	}
	for i, e := range es {
		row := e[0].Data().([]float32)
		if row[0] != float32(2*i+1) || row[1] != float32(2*i+2) || e[1].Data().(int64) != int64(7+i) {
			t.Errorf("element %d = %v, %v", i, row, e[1].Data())
		}
	}
	for name, m := range map[string]map[string]*tensor.Dense{
		"empty":    {},
		"nil":      {"a": nil},
		"disagree": {"a": img, "b": tensor.New(tensor.WithShape(2), tensor.WithBacking([]int64{1, 2}))},
	} {
		if _, _, err := FromTensorSliceMap(m); err == nil || !strings.HasPrefix(err.Error(), "datasets: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}
