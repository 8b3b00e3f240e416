package layers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func ExampleNewDense() {
	dense := layers.NewDense(16, layers.WithActivation("relu"))
	// Building for an input of 8 features (batch unknown) creates the weights.
	out, err := layers.OutputShape(dense, []ops.Shape{{-1, 8}})
	if err != nil {
		panic(err)
	}
	fmt.Println("output:", out)
	fmt.Println("kernel:", dense.Kernel.Shape(), "bias:", dense.Bias.Shape())
	// Dense works on the last axis of inputs of any rank.
	out, _ = layers.OutputShape(layers.NewDense(4), []ops.Shape{{-1, 10, 8}})
	fmt.Println("rank 3:", out)
	// Output:
	// output: (None, 16)
	// kernel: (8, 16) bias: (16,)
	// rank 3: (None, 10, 4)
}

func ExampleApply() {
	inputs := layers.Input(ops.Shape{28, 28, 1})
	x := layers.Apply(layers.NewConv2D(32, 3, layers.WithActivation("relu")), inputs)
	fmt.Println(x.Shape())
	x = layers.Apply(layers.NewMaxPooling2D(), x)
	fmt.Println(x.Shape())
	x = layers.Apply(layers.NewFlatten(), x)
	fmt.Println(x.Shape())
	outputs := layers.Apply(layers.NewDense(10, layers.WithActivation("softmax")), x)
	fmt.Println(outputs.Shape(), outputs.Err())

	// Errors are kept in the tensor and name the layer and the shape.
	bad := layers.Apply(layers.NewConv2D(8, 3, layers.WithName("conv")), layers.Input(ops.Shape{28, 28}))
	fmt.Println(bad.Err())
	// Output:
	// (None, 26, 26, 32)
	// (None, 13, 13, 32)
	// (None, 5408)
	// (None, 10) <nil>
	// layers: Conv2D "conv": build for input (None, 28, 28): needs a rank-4 (batch, height, width, channels) input, got (None, 28, 28)
}
