package datasets_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

func TestAll(t *testing.T) {
	x := tensor.New(tensor.WithShape(5, 1), tensor.WithBacking([]float32{0, 1, 2, 3, 4}))
	ds, err := datasets.FromTensorSlices(x)
	if err != nil {
		t.Fatal(err)
	}
	ds = ds.Batch(2)
	for pass := range 2 { // each range is a new pass
		var got []float32
		for b := range ds.All(context.Background()) {
			got = append(got, b[0].Data().([]float32)...)
		}
		if err := ds.Err(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []float32{0, 1, 2, 3, 4}) {
			t.Fatalf("pass %d: %v", pass, got)
		}
	}
	n := 0
	for range ds.All(context.Background()) {
		n++
		break
	}
	if n != 1 || ds.Err() != nil {
		t.Errorf("break: %d elements, err %v", n, ds.Err())
	}

	boom := errors.New("boom")
	bad := datasets.FromGenerator(func(yield func(datasets.Element) bool) error {
		yield(datasets.Element{x})
		return boom
	}, datasets.Unknown)
	n = 0
	for range bad.All(context.Background()) {
		n++
	}
	if n != 1 || !errors.Is(bad.Err(), boom) {
		t.Errorf("failing generator: %d elements, err %v", n, bad.Err())
	}
	if ds.Err() != nil {
		t.Error("one dataset's error shows on another")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range ds.All(ctx) {
		t.Fatal("an element after the context was cancelled")
	}
	if !errors.Is(ds.Err(), context.Canceled) {
		t.Errorf("cancelled pass: err %v", ds.Err())
	}
	var nilDS *datasets.Dataset
	for range nilDS.All(context.Background()) {
		t.Fatal("a nil dataset yielded")
	}
	if nilDS.Err() == nil {
		t.Error("nil dataset: no error")
	}
}
