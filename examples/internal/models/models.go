// Package models builds the tutorials' seed models, shared by the examples
// and the benchmark so that every program trains the same thing.
package models

import (
	"math"

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

// Init gives the kernel and bias initializers of a layer whose kernel
// has fan_in inputs per output; nil options keep Keras' defaults.
type Init func(fanIn int) []layers.Option

// KerasInit is Keras' default: glorot_uniform kernels, zero biases.
func KerasInit(int) []layers.Option { return nil }

// TorchInit is PyTorch's default for Conv2d and Linear, the initialisation
// of the PyTorch reference: kernels VarianceScaling(1/3, fan_in, uniform),
// that is U(±1/sqrt(fan_in)), and biases U(±1/sqrt(fan_in)).
func TorchInit(fanIn int) []layers.Option {
	vs, err := layers.VarianceScaling(1.0/3, "fan_in", "uniform")
	if err != nil {
		panic(err) // constant, valid arguments
	}
	b := 1 / math.Sqrt(float64(fanIn))
	return []layers.Option{layers.WithKernelInitializer(vs), layers.WithBiasInitializer(layers.RandomUniform(-b, b))}
}

// conv is Conv2D(filters, kernel) on x, initialised by init.
func conv(init Init, x *layers.KerasTensor, filters, kernel int, opts ...layers.Option) *layers.KerasTensor {
	in := x.Shape()[len(x.Shape())-1]
	opts = append(opts, init(kernel*kernel*in)...)
	return layers.Apply(layers.NewConv2D(filters, kernel, opts...), x)
}

// resnetBlock is the tutorial's residual block.
func resnetBlock(init Init, x *layers.KerasTensor, filters, kernelSize, stride int, convShortcut bool) *layers.KerasTensor {
	shortcut := x
	if convShortcut {
		shortcut = conv(init, shortcut, filters, 1, layers.WithStrides(stride))
		shortcut = layers.Apply(layers.NewBatchNormalization(), shortcut)
	}
	x = conv(init, x, filters, kernelSize, layers.WithStrides(stride), layers.WithPadding("same"))
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = conv(init, x, filters, kernelSize, layers.WithPadding("same"))
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.AddTensors(x, shortcut)
	x = layers.Apply(layers.NewReLU(), x)
	return x
}

// ResNetSeed is the tutorial's ResNet for 32x32x3 images: a 7x7 stem,
// six residual blocks (64, 64, 128, 128, 256, 256), global average pooling
// and 10 logits. Keras counts 2,796,490 parameters, 4,608 non-trainable.
func ResNetSeed() (*keras.Model, error) { return ResNetSeedWith(KerasInit) }

// ResNetSeedWith is ResNetSeed with its convolutions and dense layer
// initialised by init.
func ResNetSeedWith(init Init) (*keras.Model, error) {
	inputs := layers.Input([]int{32, 32, 3})
	x := conv(init, inputs, 64, 7, layers.WithStrides(2), layers.WithPadding("same"))
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), x)
	x = resnetBlock(init, x, 64, 3, 1, true)
	x = resnetBlock(init, x, 64, 3, 1, false)
	x = resnetBlock(init, x, 128, 3, 2, true)
	x = resnetBlock(init, x, 128, 3, 1, false)
	x = resnetBlock(init, x, 256, 3, 2, true)
	x = resnetBlock(init, x, 256, 3, 1, false)
	x = layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	outputs := layers.Apply(layers.NewDense(10, init(256)...), x)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
}
