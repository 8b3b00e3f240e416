package keras_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// A model called on arrays computes at once, as TensorFlow 2 runs by
// default; a GradientTape around the call gives the gradients, and the
// optimizer applies them at once. Here y = x·w + b with w = (1, 2), b = 0
// learns from one batch by one SGD step.
func ExampleModel_CallEager() {
	model, err := keras.NewSequential(layers.NewDense(1, layers.WithInputShape(2)))
	if err != nil {
		panic(err)
	}
	w, b := model.TrainableVariables()[0], model.TrainableVariables()[1]
	if err := w.Assign([]float32{1, 2}); err != nil {
		panic(err)
	}
	if err := b.Assign([]float32{0}); err != nil {
		panic(err)
	}
	x := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 1, 2, 0}))
	y := ops.ConvertToTensor(tensor.New(tensor.WithShape(2, 1), tensor.WithBacking([]float32{4, 2})))
	optimizer := optimizers.NewSGD(optimizers.LearningRate(0.1))

	tape := keras.NewGradientTape()
	pred, err := model.CallEager(x, true)
	if err != nil {
		panic(err)
	}
	loss := ops.Mean(ops.Square(ops.Sub(pred, y)), false)
	grads, err := tape.Gradient(loss, model.TrainableVariables())
	if err != nil {
		panic(err)
	}
	if err := optimizer.ApplyGradients(grads, model.TrainableVariables()); err != nil {
		panic(err)
	}
	fmt.Println("predictions:", pred.Float32s())
	fmt.Println("loss:", loss.Float32())
	fmt.Println("dloss/dw:", grads[0].Float32s(), "dloss/db:", grads[1].Float32s())
	fmt.Println("w:", w.Numpy(), "b:", b.Numpy())
	// Output:
	// predictions: [3 2]
	// loss: 0.5
	// dloss/dw: [-1 -1] dloss/db: [-1]
	// w: [1.1 2.1] b: [0.1]
}

// CallLayer calls one layer on an array: Keras' layer(x). The layer is
// built for the input's shape on first use.
func ExampleCallLayer() {
	relu := layers.NewReLU()
	y, err := keras.CallLayer(relu, false, tensor.New(tensor.WithShape(4), tensor.WithBacking([]float32{-2, -0.5, 0.5, 2})))
	if err != nil {
		panic(err)
	}
	fmt.Println(y.Shape(), y.Float32s())
	// Output:
	// (4,) [0 0 0.5 2]
}
