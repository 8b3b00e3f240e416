package applications

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const xceptionBase = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"

// Xception is keras.applications.Xception (Xception: Deep Learning with
// Depthwise Separable Convolutions, Chollet 2017): 299x299 inputs by
// default (at least 71x71), preprocessed with [XceptionPreprocessInput]
// (tf mode). Options: the common ones.
func Xception(opts ...Option) (*keras.Model, error) {
	const ctor = "Xception"
	c, err := newConfig(ctor, "xception", nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, 299, 71, c.includeTop)
	if err != nil {
		return nil, err
	}
	noBias := layers.WithUseBias(false)
	sep := func(x *layers.KerasTensor, filters int, name string) *layers.KerasTensor {
		return layers.Apply(layers.NewSeparableConv2D(filters, 3, layers.WithPadding("same"), noBias, layers.WithName(name)), x)
	}
	shortcut := func(x *layers.KerasTensor, filters int) *layers.KerasTensor {
		r := conv(x, filters, 1, auto("conv2d"), layers.WithStrides(2), layers.WithPadding("same"), noBias)
		return bn(r, auto("batch_normalization"))
	}
	x := conv(in, 32, 3, "block1_conv1", layers.WithStrides(2), noBias)
	x = bn(x, "block1_conv1_bn")
	x = activation(x, "relu", "block1_conv1_act")
	x = conv(x, 64, 3, "block1_conv2", noBias)
	x = bn(x, "block1_conv2_bn")
	x = activation(x, "relu", "block1_conv2_act")

	// Entry flow: blocks 2-4, each halving the size beside a strided 1x1
	// shortcut; block 2 starts without an activation.
	for i, f := range []int{128, 256, 728} {
		b := "block" + itoa(i+2)
		residual := shortcut(x, f)
		if i > 0 {
			x = activation(x, "relu", b+"_sepconv1_act")
		}
		x = sep(x, f, b+"_sepconv1")
		x = bn(x, b+"_sepconv1_bn")
		x = activation(x, "relu", b+"_sepconv2_act")
		x = sep(x, f, b+"_sepconv2")
		x = bn(x, b+"_sepconv2_bn")
		x = maxPool(x, 3, 2, b+"_pool", layers.WithPadding("same"))
		x = add(auto("add"), x, residual)
	}
	// Middle flow: blocks 5-12.
	for i := range 8 {
		residual := x
		b := "block" + itoa(i+5)
		for j := 1; j <= 3; j++ {
			s := b + "_sepconv" + itoa(j)
			x = activation(x, "relu", s+"_act")
			x = sep(x, 728, s)
			x = bn(x, s+"_bn")
		}
		x = add(auto("add"), x, residual)
	}
	// Exit flow.
	residual := shortcut(x, 1024)
	x = activation(x, "relu", "block13_sepconv1_act")
	x = sep(x, 728, "block13_sepconv1")
	x = bn(x, "block13_sepconv1_bn")
	x = activation(x, "relu", "block13_sepconv2_act")
	x = sep(x, 1024, "block13_sepconv2")
	x = bn(x, "block13_sepconv2_bn")
	x = maxPool(x, 3, 2, "block13_pool", layers.WithPadding("same"))
	x = add(auto("add"), x, residual)
	x = sep(x, 1536, "block14_sepconv1")
	x = bn(x, "block14_sepconv1_bn")
	x = activation(x, "relu", "block14_sepconv1_act")
	x = sep(x, 2048, "block14_sepconv2")
	x = bn(x, "block14_sepconv2_bn")
	x = activation(x, "relu", "block14_sepconv2_act")
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	return c.finish(ctor, in, x, c.topFiles(xceptionBase, "xception_weights_tf_dim_ordering_tf_kernels.h5",
		"0a58e3b7378bc2990ea3b43d5981f1f6", "xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
		"b0042744bf5b25fce3cb969f33bebb97"))
}
