package applications

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const vggBase = "https://storage.googleapis.com/tensorflow/keras-applications/"

// VGG16 is keras.applications.VGG16 (Very Deep Convolutional Networks
// for Large-Scale Image Recognition, Simonyan and Zisserman 2014): 13
// convolutions in 5 blocks, and with the top a Flatten and two
// 4096-unit layers (so the top needs the input size fixed: 224x224 by
// default, at least 32x32). Inputs preprocessed with
// [VGG16PreprocessInput] (caffe mode). Options: the common ones.
func VGG16(opts ...Option) (*keras.Model, error) {
	return vgg("VGG16", "vgg16", []int{2, 2, 3, 3, 3},
		"64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc", opts)
}

// VGG19 is keras.applications.VGG19: [VGG16] with 16 convolutions.
func VGG19(opts ...Option) (*keras.Model, error) {
	return vgg("VGG19", "vgg19", []int{2, 2, 4, 4, 4},
		"cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6", opts)
}

func vgg(ctor, name string, convs []int, topHash, notopHash string, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, name, nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, 224, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	x := in
	for b, n := range convs {
		filters := min(64<<b, 512)
		block := "block" + itoa(b+1)
		for i := 1; i <= n; i++ {
			x = conv(x, filters, 3, block+"_conv"+itoa(i), layers.WithActivation("relu"), layers.WithPadding("same"))
		}
		x = maxPool(x, 2, 2, block+"_pool")
	}
	if c.includeTop {
		x = layers.Apply(layers.NewFlatten(layers.WithName("flatten")), x)
		x = dense(x, 4096, "relu", "fc1")
		x = dense(x, 4096, "relu", "fc2")
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	top := name + "_weights_tf_dim_ordering_tf_kernels.h5"
	notop := name + "_weights_tf_dim_ordering_tf_kernels_notop.h5"
	return c.finish(ctor, in, x, c.topFiles(vggBase+name+"/", top, topHash, notop, notopHash))
}
