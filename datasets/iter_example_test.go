package datasets_test

import (
	"context"
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// All ranges over one pass of a dataset with a Go for loop; Err tells
// afterwards whether the pass failed.
func ExampleDataset_All() {
	x := tensor.New(tensor.WithShape(5), tensor.WithBacking([]float32{0, 1, 2, 3, 4}))
	ds, err := datasets.FromTensorSlices(x)
	if err != nil {
		panic(err)
	}
	ds = ds.Batch(2)
	for batch := range ds.All(context.Background()) {
		fmt.Println(batch[0].Data())
	}
	if err := ds.Err(); err != nil {
		panic(err)
	}
	// Output:
	// [0 1]
	// [2 3]
	// [4]
}
