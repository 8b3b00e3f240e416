package applications

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const densenetBase = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"

// DenseNet121 is keras.applications.DenseNet121 (Densely Connected
// Convolutional Networks, Huang et al. 2017): dense blocks of 6, 12, 24
// and 16 layers, each concatenating 32 new channels to its input, with
// halving transitions between them. 224x224 inputs by default (at least
// 32x32), preprocessed with [DenseNetPreprocessInput] (torch mode).
// Options: the common ones.
func DenseNet121(opts ...Option) (*keras.Model, error) {
	return densenet("DenseNet121", "densenet121", []int{6, 12, 24, 16},
		"9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738", opts)
}

// DenseNet169 is keras.applications.DenseNet169: blocks of 6, 12, 32
// and 32 layers.
func DenseNet169(opts ...Option) (*keras.Model, error) {
	return densenet("DenseNet169", "densenet169", []int{6, 12, 32, 32},
		"d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b", opts)
}

// DenseNet201 is keras.applications.DenseNet201: blocks of 6, 12, 48
// and 32 layers.
func DenseNet201(opts ...Option) (*keras.Model, error) {
	return densenet("DenseNet201", "densenet201", []int{6, 12, 48, 32},
		"1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1", opts)
}

func densenet(ctor, name string, blocks []int, topHash, notopHash string, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, name, nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, 224, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	eps := layers.WithEpsilon(1.001e-5)
	x := pad(in, 3, 3, 3, 3, auto("zero_padding2d"))
	x = conv(x, 64, 7, "conv1_conv", layers.WithStrides(2), layers.WithUseBias(false))
	x = bn(x, "conv1_bn", eps)
	x = activation(x, "relu", "conv1_relu")
	x = pad(x, 1, 1, 1, 1, auto("zero_padding2d"))
	x = maxPool(x, 3, 2, "pool1")
	for i, n := range blocks {
		stage := itoa(i + 2)
		for j := 1; j <= n; j++ {
			x = densenetConvBlock(x, 32, "conv"+stage+"_block"+itoa(j))
		}
		if i < len(blocks)-1 {
			x = densenetTransition(x, 0.5, "pool"+stage)
		}
	}
	x = bn(x, "bn", eps)
	x = activation(x, "relu", "relu")
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, "avg_pool", "max_pool")
	}
	return c.finish(ctor, in, x, c.topFiles(densenetBase, name+"_weights_tf_dim_ordering_tf_kernels.h5", topHash,
		name+"_weights_tf_dim_ordering_tf_kernels_notop.h5", notopHash))
}

// densenetConvBlock is a dense layer: batch normalization, ReLU, a 1x1
// bottleneck of 4*growth channels, then a 3x3 convolution of growth
// channels, concatenated to the input.
func densenetConvBlock(x *layers.KerasTensor, growth int, name string) *layers.KerasTensor {
	eps := layers.WithEpsilon(1.001e-5)
	y := bn(x, name+"_0_bn", eps)
	y = activation(y, "relu", name+"_0_relu")
	y = conv(y, 4*growth, 1, name+"_1_conv", layers.WithUseBias(false))
	y = bn(y, name+"_1_bn", eps)
	y = activation(y, "relu", name+"_1_relu")
	y = conv(y, growth, 3, name+"_2_conv", layers.WithPadding("same"), layers.WithUseBias(false))
	return concat(name+"_concat", x, y)
}

// densenetTransition halves the size (2x2 average pooling) and scales
// the channels by reduction (a 1x1 convolution).
func densenetTransition(x *layers.KerasTensor, reduction float64, name string) *layers.KerasTensor {
	x = bn(x, name+"_bn", layers.WithEpsilon(1.001e-5))
	x = activation(x, "relu", name+"_relu")
	x = conv(x, int(float64(x.Shape()[3])*reduction), 1, name+"_conv", layers.WithUseBias(false))
	return avgPool(x, 2, 2, name+"_pool")
}
