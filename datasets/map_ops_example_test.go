package datasets_test

import (
	"context"
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// The tutorials' ds.map(lambda x, y: (tf.image.resize(x, size), y)) over
// batches of (images, labels).
func ExampleDataset_MapPairs() {
	images := tensor.New(tensor.WithShape(4, 2, 2, 1), tensor.WithBacking([]uint8{
		0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150}))
	labels := tensor.New(tensor.WithShape(4), tensor.WithBacking([]int32{0, 1, 0, 1}))
	ds, err := datasets.FromTensorSlices(images, labels)
	if err != nil {
		fmt.Println(err)
		return
	}
	ds = ds.Batch(2).MapPairs(func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
		x, err := datasets.Resize(x, 4, 4)
		return x, y, err
	})
	for batch := range ds.All(context.Background()) {
		fmt.Println(batch[0].Shape(), batch[0].Dtype(), batch[1].Data())
	}
	fmt.Println(ds.Err())
	// Output:
	// (2, 4, 4, 1) float32 [0 1]
	// (2, 4, 4, 1) float32 [0 1]
	// <nil>
}

func ExampleResize() {
	img := tensor.New(tensor.WithShape(1, 2, 1), tensor.WithBacking([]float32{0, 1}))
	up, _ := datasets.Resize(img, 1, 4)
	near, _ := datasets.Resize(img, 1, 4, "nearest")
	fmt.Println(up.Data(), near.Data())
	// Output: [0 0.25 0.75 1] [0 0 1 1]
}

func ExampleCast() {
	x := tensor.New(tensor.WithShape(4), tensor.WithBacking([]float32{-1.7, 0.5, 2.9, 255}))
	y, _ := datasets.Cast(x, datasets.Int32)
	_, err := datasets.Cast(x, datasets.Uint8)
	fmt.Println(y.Data())
	fmt.Println(err)
	// Output:
	// [-1 0 2 255]
	// datasets: Cast: value -1.7000000476837158 at 0 of a float32 tensor of shape (4) does not fit uint8
}

// keras.ops.expand_dims(img_array, 0) before predicting one image.
func ExampleExpandDims() {
	img := tensor.New(tensor.WithShape(180, 180, 3), tensor.Of(tensor.Float32))
	batch, _ := datasets.ExpandDims(img, 0)
	fmt.Println(batch.Shape())
	// Output: (1, 180, 180, 3)
}

func ExampleArange() {
	a, _ := datasets.Arange(5)
	b, _ := datasets.Arange(1, 0, -0.25)
	fmt.Println(a.Data(), b.Data())
	// Output: [0 1 2 3 4] [1 0.75 0.5 0.25]
}
