package applications

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// ResNet50V2 is keras.applications.ResNet50V2 (Identity Mappings in Deep
// Residual Networks, He et al. 2016): pre-activation blocks, 224x224
// inputs by default (at least 32x32), preprocessed with
// [ResNetV2PreprocessInput] (tf mode). Options: the common ones.
func ResNet50V2(opts ...Option) (*keras.Model, error) {
	return resnet("ResNet50V2", "resnet50v2", []int{3, 4, 6, 3}, true, opts)
}

// ResNet101V2 is keras.applications.ResNet101V2.
func ResNet101V2(opts ...Option) (*keras.Model, error) {
	return resnet("ResNet101V2", "resnet101v2", []int{3, 4, 23, 3}, true, opts)
}

// ResNet152V2 is keras.applications.ResNet152V2.
func ResNet152V2(opts ...Option) (*keras.Model, error) {
	return resnet("ResNet152V2", "resnet152v2", []int{3, 8, 36, 3}, true, opts)
}

// resnetStackV2 is a stack of pre-activation blocks, the first with a
// convolution shortcut, the last with the given stride.
func resnetStackV2(x *layers.KerasTensor, filters, blocks, stride int, name string) *layers.KerasTensor {
	x = resnetBlockV2(x, filters, 1, true, name+"_block1")
	for i := 2; i < blocks; i++ {
		x = resnetBlockV2(x, filters, 1, false, name+"_block"+itoa(i))
	}
	return resnetBlockV2(x, filters, stride, false, name+"_block"+itoa(blocks))
}

// resnetBlockV2 is a pre-activation bottleneck block: batch normalization
// and ReLU first, then 1x1, 3x3 (strided) and 1x1 convolutions added to
// the shortcut (a 1x1 max pooling where the block strides).
func resnetBlockV2(x *layers.KerasTensor, filters, stride int, convShortcut bool, name string) *layers.KerasTensor {
	eps := layers.WithEpsilon(1.001e-5)
	preact := bn(x, name+"_preact_bn", eps)
	preact = activation(preact, "relu", name+"_preact_relu")
	shortcut := x
	switch {
	case convShortcut:
		shortcut = conv(preact, 4*filters, 1, name+"_0_conv", layers.WithStrides(stride))
	case stride > 1:
		shortcut = maxPool(x, 1, stride, auto("max_pooling2d"))
	}
	x = conv(preact, filters, 1, name+"_1_conv", layers.WithUseBias(false))
	x = bn(x, name+"_1_bn", eps)
	x = activation(x, "relu", name+"_1_relu")
	x = pad(x, 1, 1, 1, 1, name+"_2_pad")
	x = conv(x, filters, 3, name+"_2_conv", layers.WithStrides(stride), layers.WithUseBias(false))
	x = bn(x, name+"_2_bn", eps)
	x = activation(x, "relu", name+"_2_relu")
	x = conv(x, 4*filters, 1, name+"_3_conv")
	return add(name+"_out", shortcut, x)
}
