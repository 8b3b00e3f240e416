package datasets_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// A training input pipeline: slice (x, y), shuffle each epoch, batch, and
// prepare the next batch while the current one is used.
func ExampleFromTensorSlices() {
	x := tensor.New(tensor.WithShape(10, 2), tensor.WithBacking([]float32{
		0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9}))
	y := tensor.New(tensor.WithShape(10), tensor.WithBacking([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
	ds, err := datasets.FromTensorSlices(x, y)
	if err != nil {
		log.Fatal(err)
	}
	ds = ds.Batch(4, false).Prefetch(2)
	fmt.Println("batches per epoch:", ds.Cardinality())

	it := ds.Iterate(context.Background())
	defer it.Close()
	for batch, ok := it.Next(); ok; batch, ok = it.Next() {
		fmt.Println(batch[0].Shape(), batch[1].Data())
	}
	if err := it.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// batches per epoch: 3
	// (4, 2) [0 1 2 3]
	// (4, 2) [4 5 6 7]
	// (2, 2) [8 9]
}

// Each pass over a shuffled dataset has its own order, and the orders are
// the same every time the program runs.
func ExampleDataset_Shuffle() {
	y := tensor.New(tensor.WithShape(6), tensor.WithBacking([]int{0, 1, 2, 3, 4, 5}))
	ds, _ := datasets.FromTensorSlices(y)
	ds = ds.Shuffle(6, 42)
	for epoch := range 2 {
		var order []any
		it := ds.Iterate(context.Background())
		for e, ok := it.Next(); ok; e, ok = it.Next() {
			order = append(order, e[0].Data())
		}
		it.Close()
		fmt.Println("epoch", epoch, order)
	}
	// Output:
	// epoch 0 [4 1 5 3 2 0]
	// epoch 1 [1 5 0 4 3 2]
}

func ExampleDataset_Cardinality() {
	ds, _ := datasets.FromTensorSlices(tensor.New(tensor.WithShape(10), tensor.WithBacking(make([]float32, 10))))
	fmt.Println(ds.Batch(3, false).Cardinality(), ds.Batch(3, true).Cardinality())
	fmt.Println(ds.Repeat(-1).Cardinality() == datasets.Infinite, ds.Repeat(-1).Take(4).Cardinality())
	// Output:
	// 4 3
	// true 4
}

// Loading MNIST and turning it into float32 inputs in [0, 1] with a channel
// dimension, and float32 labels.
func ExampleLoadMNIST() {
	train, _, err := datasets.LoadMNIST(datasets.NoDownload())
	if errors.Is(err, datasets.ErrNotFound) {
		fmt.Println(err) // lists every place searched and how to get the data
		return
	} else if err != nil {
		log.Fatal(err)
	}
	x, err := datasets.ToFloat32(train.X, 1/255.0, true)
	if err != nil {
		log.Fatal(err)
	}
	y, err := datasets.LabelsToFloat32(train.Y)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(x.Shape(), y.Shape()) // (60000, 28, 28, 1) (60000)
}
