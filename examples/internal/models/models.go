// Package models builds the tutorials' seed models, shared by the examples
// and the benchmark so that every program trains the same thing.
package models

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// MNISTCNN is the CNN of the MirroredStrategy tutorial.
func MNISTCNN() (*keras.Model, error) {
	return keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
}

// resnetBlock is the tutorial's residual block.
func resnetBlock(x *layers.KerasTensor, filters, kernelSize, stride int, convShortcut bool) *layers.KerasTensor {
	shortcut := x
	if convShortcut {
		shortcut = layers.Apply(layers.NewConv2D(filters, 1, layers.WithStrides(stride)), shortcut)
		shortcut = layers.Apply(layers.NewBatchNormalization(), shortcut)
	}
	x = layers.Apply(layers.NewConv2D(filters, kernelSize, layers.WithStrides(stride), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewConv2D(filters, kernelSize, layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.AddTensors(x, shortcut)
	x = layers.Apply(layers.NewReLU(), x)
	return x
}

// ResNetSeed is the tutorial's ResNet for 32x32x3 images: a 7x7 stem,
// six residual blocks (64, 64, 128, 128, 256, 256), global average pooling
// and 10 logits. Keras counts 2,796,490 parameters, 4,608 non-trainable.
func ResNetSeed() (*keras.Model, error) {
	inputs := layers.Input([]int{32, 32, 3})
	x := layers.Apply(layers.NewConv2D(64, 7, layers.WithStrides(2), layers.WithPadding("same")), inputs)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), x)
	x = resnetBlock(x, 64, 3, 1, true)
	x = resnetBlock(x, 64, 3, 1, false)
	x = resnetBlock(x, 128, 3, 2, true)
	x = resnetBlock(x, 128, 3, 1, false)
	x = resnetBlock(x, 256, 3, 2, true)
	x = resnetBlock(x, 256, 3, 1, false)
	x = layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	outputs := layers.Apply(layers.NewDense(10), x)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
}
