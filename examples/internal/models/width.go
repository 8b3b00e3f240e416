package models

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// MNISTCNNWidth is [MNISTCNN] with its convolutions' filters scaled by
// width: Conv2D(32·width), Conv2D(64·width). The dense layers keep their
// units (128 and 10), as the seed has them; the first one's inputs
// (5·5·64·width after Flatten) grow with the filters, so its GEMMs grow
// with width too. MNISTCNNWidth(1) is MNISTCNN. width must make 32·width a
// positive whole number (0.5, 1, 2, 4, ...).
func MNISTCNNWidth(width float64) (*keras.Model, error) {
	f1, f2, err := CNNFilters(width)
	if err != nil {
		return nil, err
	}
	return keras.NewSequential(
		layers.NewConv2D(f1, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(f2, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
}

// CNNFilters returns the filters of the seed CNN's two convolutions at
// width (32·width and 64·width), or an error when 32·width is not a
// positive whole number.
func CNNFilters(width float64) (first, second int, err error) {
	f := 32 * width
	if !(f >= 1) || f != math.Trunc(f) || f > 1<<16 {
		return 0, 0, fmt.Errorf("models: width %v: 32 x width must be a whole number of filters from 1 to 65536", width)
	}
	return int(f), 2 * int(f), nil
}
