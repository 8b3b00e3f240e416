package datasets

import (
	"context"
	"reflect"
	"testing"

	"gorgonia.org/tensor"
)

// Class names and file paths ride on the dataset they were set on, as
// copies, and are dropped by transformations, as tf.data drops Keras'
// attributes.
func TestAttributes(t *testing.T) {
	ds, err := FromTensorSlices(tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3})))
	if err != nil {
		t.Fatal(err)
	}
	if ds.ClassNames() != nil || ds.FilePaths() != nil {
		t.Fatal("attributes on a plain dataset")
	}
	names, paths := []string{"cat", "dog"}, []string{"a.png", "b.png", "c.png"}
	with := ds.WithAttributes(names, paths)
	names[0] = "changed"
	if got := with.ClassNames(); !reflect.DeepEqual(got, []string{"cat", "dog"}) {
		t.Errorf("class names %q", got)
	}
	with.FilePaths()[0] = "changed"
	if got := with.FilePaths(); !reflect.DeepEqual(got, paths) {
		t.Errorf("file paths %q", got)
	}
	if ds.ClassNames() != nil {
		t.Error("WithAttributes changed its receiver")
	}
	if with.Batch(2).ClassNames() != nil || with.Prefetch(1).FilePaths() != nil {
		t.Error("a transformation kept the attributes")
	}
	if with.Cardinality() != 3 {
		t.Errorf("cardinality %d", with.Cardinality())
	}
	var nilDS *Dataset
	it := nilDS.WithAttributes(nil, nil).Iterate(context.Background())
	defer it.Close()
	if _, ok := it.Next(); ok || it.Err() == nil || nilDS.ClassNames() != nil {
		t.Error("nil dataset")
	}
}

func TestRandomStatePermutationBounds(t *testing.T) {
	if _, err := RandomStatePermutation(-1, 3); err == nil {
		t.Error("negative seed accepted")
	}
	if _, err := RandomStatePermutation(1<<32, 3); err == nil {
		t.Error("seed 2**32 accepted")
	}
	if p, err := RandomStatePermutation(1<<32-1, 0); err != nil || len(p) != 0 {
		t.Errorf("n 0: %v %v", p, err)
	}
}
