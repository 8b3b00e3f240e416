package layers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// An Input with a None dimension takes sequences of any length, as
// keras.Input(shape=(None, 8)); layers after it keep None where the size
// follows it. A dtype marks token ids, as keras.Input((None,), dtype="int32").
func ExampleInput_none() {
	layers.ClearSession()
	x := layers.Input([]int{layers.None, 8})
	h := layers.Apply(layers.NewDense(4), x)
	p := layers.Apply(layers.NewGlobalAveragePooling1D(), h)
	fmt.Println(x.Shape(), h.Shape(), p.Shape())
	ids := layers.Input([]int{layers.None}, layers.WithDtype("int32"))
	e := layers.Apply(layers.NewEmbedding(1000, 16), ids)
	fmt.Println(ids.Dtype(), e.Shape())
	// Output:
	// (None, None, 8) (None, None, 4) (None, 4)
	// int32 (None, None, 16)
}

// A Sequential model that starts with its input, as
// keras.Sequential([keras.Input(shape=(28, 28, 1)), layers.Conv2D(...), ...]),
// is built at once.
func ExampleNewInputLayer() {
	layers.ClearSession()
	model, err := keras.NewSequential(
		layers.NewInputLayer([]int{28, 28, 1}),
		layers.NewConv2D(8, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(10),
	)
	fmt.Println(err, model.Built(), len(model.Layers()), model.Outputs()[0].Shape())
	// Output:
	// <nil> true 4 (None, 10)
}

// layer.Output() (and Input()) are the tensors of the layer's first call:
// a model from a network's input to an inner layer's output extracts
// features, as keras.Model(inputs=model.input, outputs=layer.output).
func ExampleBase_Output() {
	layers.ClearSession()
	x := layers.Input([]int{32, 32, 3})
	conv := layers.NewConv2D(16, 3, layers.WithName("block1_conv"))
	h := layers.Apply(layers.NewGlobalAveragePooling2D(), layers.Apply(conv, x))
	classifier, _ := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{layers.Apply(layers.NewDense(10), h)})
	features, _ := keras.NewModel(classifier.Inputs(), []*layers.KerasTensor{conv.Output()})
	fmt.Println(conv.Input() == x, features.Outputs()[0].Shape())
	// Output:
	// true (None, 30, 30, 16)
}

// Kernel sizes, strides and pool sizes take one value for both spatial
// dimensions or a (height, width) pair, as Keras' kernel_size=(3, 5),
// strides=(2, 1).
func ExampleWithKernelSize() {
	layers.ClearSession()
	x := layers.Input([]int{20, 20, 3})
	c := layers.Apply(layers.NewConv2D(4, 0, layers.WithKernelSize(3, 5), layers.WithStrides(2, 1)), x)
	p := layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(2, 3), layers.WithStrides(1, 2)), c)
	fmt.Println(c.Shape(), p.Shape())
	// Output:
	// (None, 9, 16, 4) (None, 8, 7, 4)
}
