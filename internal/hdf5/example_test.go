package hdf5_test

import (
	"bytes"
	"fmt"

	"github.com/gokeras/gokeras/internal/hdf5"
)

// Example writes a Keras 3 style weights file and reads a variable back.
func Example() {
	root := &hdf5.Group{Groups: []*hdf5.Group{{
		Name: "layers", Groups: []*hdf5.Group{{
			Name: "dense", Groups: []*hdf5.Group{{
				Name: "vars", Datasets: []*hdf5.Dataset{
					{Name: "0", Shape: []int{2, 2}, Value: []float32{1, 2, 3, 4}},
					{Name: "1", Shape: []int{2}, Value: []float32{0.5, -0.5}},
				},
			}},
		}},
	}}}
	var file bytes.Buffer
	if err := hdf5.Encode(&file, root); err != nil {
		fmt.Println(err)
		return
	}
	got, err := hdf5.Decode(bytes.NewReader(file.Bytes()), int64(file.Len()), hdf5.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, kernel, err := got.Lookup("layers/dense/vars/0")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(kernel.Shape, kernel.Value)
	_, _, err = got.Lookup("layers/dense/vars/2")
	fmt.Println(err)
	// Output:
	// [2 2] [1 2 3 4]
	// hdf5: layers/dense/vars/2: no such object ("layers/dense/vars/2" missing)
}
