package datasets_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/gokeras/gokeras/datasets"
)

// Load CIFAR-10 for a convolutional network: images (N, 32, 32, 3) scaled
// to [0, 1] and labels as float32 class ids.
func ExampleLoadCIFAR10() {
	train, test, err := datasets.LoadCIFAR10(datasets.NoDownload())
	if errors.Is(err, datasets.ErrNotFound) {
		fmt.Println(err) // lists every place searched and how to get the files
		return
	}
	if err != nil {
		log.Fatal(err) // e.g. a damaged file, named in the message
	}
	x, err := datasets.ToFloat32(train.X, 1/255.0, false)
	if err != nil {
		log.Fatal(err)
	}
	y, err := datasets.LabelsToFloat32(train.Y)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(x.Shape(), y.Shape(), test.X.Shape())
	fmt.Println("first label:", datasets.CIFAR10Classes[train.Y.Data().([]uint8)[0]])
}

// CIFAR-100 with the 20 coarse labels instead of the 100 fine ones.
func ExampleLoadCIFAR100() {
	train, _, err := datasets.LoadCIFAR100(datasets.LabelMode("coarse"), datasets.NoDownload())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(train.X.Shape(), train.Y.Shape())
}
