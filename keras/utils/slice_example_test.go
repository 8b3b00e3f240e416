package utils_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// The guide's data preparation: x_train = np.reshape(x_train, (-1, 4)),
// then the last rows for validation (x_train[-2:]) and the rest for
// training (x_train[:-2]).
func ExampleSlice() {
	images := tensor.New(tensor.WithShape(5, 2, 2), tensor.WithBacking([]uint8{
		0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33, 40, 41, 42, 43}))
	xTrain, err := utils.Reshape(images, -1, 4)
	if err != nil {
		panic(err)
	}
	xVal, err := utils.Slice(xTrain, -2, utils.End)
	if err != nil {
		panic(err)
	}
	if xTrain, err = utils.Slice(xTrain, 0, -2); err != nil {
		panic(err)
	}
	fmt.Println(xTrain.Shape(), xTrain.Data())
	fmt.Println(xVal.Shape(), xVal.Data())
	// Output:
	// (3, 4) [0 1 2 3 10 11 12 13 20 21 22 23]
	// (2, 4) [30 31 32 33 40 41 42 43]
}
