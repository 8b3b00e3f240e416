// Package layers holds the Keras layers of gokeras: Dense, Conv2D,
// MaxPooling2D, Flatten, Dropout and the rest, with Keras' names, defaults
// and weight shapes.
//
// # Overview
//
// A layer is created with its Keras positional arguments and options for
// the keyword ones:
//
//	conv := layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1))
//
// It builds its weights on first use from its input shape, and computes in a
// traced step through package ops only. Calling [Apply] on symbolic
// [KerasTensor]s (from [Input]) records the functional graph a keras.Model is
// made from:
//
//	inputs := layers.Input(ops.Shape{28, 28, 1})
//	x := layers.Apply(conv, inputs)
//
// Errors (an option a layer does not take, a wrong input shape) are kept in
// the resulting KerasTensor, like bufio.Scanner keeps its error, and returned
// by keras.NewModel; they name the layer and the shapes.
package layers
