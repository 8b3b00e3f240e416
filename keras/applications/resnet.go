package applications

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// resnetBase is where Keras downloads the ResNet weights from.
const resnetBase = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"

// resnetHashes are the MD5 digests of the ResNet weights files, with the
// top and without.
var resnetHashes = map[string][2]string{
	"resnet50":    {"2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"},
	"resnet101":   {"f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"},
	"resnet152":   {"100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"},
	"resnet50v2":  {"3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"},
	"resnet101v2": {"6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"},
	"resnet152v2": {"a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"},
}

// ResNet50 is keras.applications.ResNet50 (Deep Residual Learning for
// Image Recognition, He et al. 2015): 224x224 inputs by default (at least
// 32x32), preprocessed with [ResNetPreprocessInput] (caffe mode).
// Options: the common ones ([WithIncludeTop], [WithWeights],
// [WithInputTensor], [WithInputShape], [WithPooling], [WithClasses],
// [WithClassifierActivation], [WithName]).
func ResNet50(opts ...Option) (*keras.Model, error) {
	return resnet("ResNet50", "resnet50", []int{3, 4, 6, 3}, false, opts)
}

// ResNet101 is keras.applications.ResNet101: [ResNet50] with 23 blocks in
// its third stack.
func ResNet101(opts ...Option) (*keras.Model, error) {
	return resnet("ResNet101", "resnet101", []int{3, 4, 23, 3}, false, opts)
}

// ResNet152 is keras.applications.ResNet152: [ResNet50] with 8 and 36
// blocks in its second and third stacks.
func ResNet152(opts ...Option) (*keras.Model, error) {
	return resnet("ResNet152", "resnet152", []int{3, 8, 36, 3}, false, opts)
}

// resnet builds the ResNet of the given blocks per stack, with
// post-activation blocks (V1) or pre-activation ones (V2, preact).
func resnet(ctor, name string, blocks []int, preact bool, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, name, nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, 224, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	eps := layers.WithEpsilon(1.001e-5)
	x := pad(in, 3, 3, 3, 3, "conv1_pad")
	x = conv(x, 64, 7, "conv1_conv", layers.WithStrides(2))
	if !preact {
		x = bn(x, "conv1_bn", eps)
		x = activation(x, "relu", "conv1_relu")
	}
	x = pad(x, 1, 1, 1, 1, "pool1_pad")
	x = maxPool(x, 3, 2, "pool1_pool")
	for i, n := range blocks {
		stack := "conv" + itoa(i+2)
		filters := 64 << i
		if preact {
			// V2 strides at the end of each stack but the last.
			stride := 2
			if i == len(blocks)-1 {
				stride = 1
			}
			x = resnetStackV2(x, filters, n, stride, stack)
		} else {
			stride := 2
			if i == 0 {
				stride = 1
			}
			x = resnetStackV1(x, filters, n, stride, stack)
		}
	}
	if preact {
		x = bn(x, "post_bn", eps)
		x = activation(x, "relu", "post_relu")
	}
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, "avg_pool", "max_pool")
	}
	h := resnetHashes[name]
	file := c.topFiles(resnetBase, name+"_weights_tf_dim_ordering_tf_kernels.h5", h[0],
		name+"_weights_tf_dim_ordering_tf_kernels_notop.h5", h[1])
	return c.finish(ctor, in, x, file)
}

// resnetStackV1 is a stack of bottleneck blocks, the first with a
// convolution shortcut and the given stride.
func resnetStackV1(x *layers.KerasTensor, filters, blocks, stride int, name string) *layers.KerasTensor {
	x = resnetBlockV1(x, filters, stride, true, name+"_block1")
	for i := 2; i <= blocks; i++ {
		x = resnetBlockV1(x, filters, 1, false, name+"_block"+itoa(i))
	}
	return x
}

// resnetBlockV1 is a post-activation bottleneck block: 1x1, 3x3, 1x1
// convolutions with batch normalization, added to the shortcut, then ReLU.
func resnetBlockV1(x *layers.KerasTensor, filters, stride int, convShortcut bool, name string) *layers.KerasTensor {
	eps := layers.WithEpsilon(1.001e-5)
	shortcut := x
	if convShortcut {
		shortcut = conv(x, 4*filters, 1, name+"_0_conv", layers.WithStrides(stride))
		shortcut = bn(shortcut, name+"_0_bn", eps)
	}
	x = conv(x, filters, 1, name+"_1_conv", layers.WithStrides(stride))
	x = bn(x, name+"_1_bn", eps)
	x = activation(x, "relu", name+"_1_relu")
	x = conv(x, filters, 3, name+"_2_conv", layers.WithPadding("same"))
	x = bn(x, name+"_2_bn", eps)
	x = activation(x, "relu", name+"_2_relu")
	x = conv(x, 4*filters, 1, name+"_3_conv")
	x = bn(x, name+"_3_bn", eps)
	x = add(name+"_add", shortcut, x)
	return activation(x, "relu", name+"_out")
}
