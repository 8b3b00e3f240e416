package applications

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const nasnetBase = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"

// NASNetMobile is keras.applications.NASNetMobile (Learning Transferable
// Architectures for Scalable Image Recognition, Zoph et al. 2018):
// NASNet-A with 4 normal cells per stage and 1056 penultimate filters,
// 224x224 inputs by default (also without the top; at least 32x32),
// preprocessed with [NASNetPreprocessInput] (tf mode). Many of its layers
// are unnamed in Keras and take Keras' default names. Options: the
// common ones.
func NASNetMobile(opts ...Option) (*keras.Model, error) {
	const ctor = "NASNetMobile"
	c, err := newConfig(ctor, "nasnet_mobile", nil, opts)
	if err != nil {
		return nil, err
	}
	if c.inputShape == nil && !c.includeTop {
		c.inputShape = []int{224, 224, 3}
	}
	if c.weights == "imagenet" && c.inputShape != nil && (c.inputShape[0] == layers.None || c.inputShape[1] == layers.None) {
		return nil, fmt.Errorf("applications: %s: ImageNet weights need a static input_shape, got %v", ctor, c.inputShape)
	}
	in, err := c.input(ctor, 224, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	const penultimate, blocks, stem, mult = 1056, 4, 32, 2
	filters := penultimate / 24
	x := conv(in, stem, 3, "stem_conv1", layers.WithStrides(2), layers.WithUseBias(false), layers.WithKernelInitializer(layers.HeNormal()))
	x = nasBN(x, "stem_bn1")
	var p *layers.KerasTensor
	x, p = nasReductionCell(x, p, filters/(mult*mult), "stem_1")
	x, p = nasReductionCell(x, p, filters/mult, "stem_2")
	for i := range blocks {
		x, p = nasNormalCell(x, p, filters, itoa(i))
	}
	x, p = nasReductionCell(x, p, filters*mult, "reduce_"+itoa(blocks))
	for i := range blocks {
		x, p = nasNormalCell(x, p, filters*mult, itoa(blocks+i+1))
	}
	x, p = nasReductionCell(x, p, filters*mult*mult, "reduce_"+itoa(2*blocks))
	for i := range blocks {
		x, p = nasNormalCell(x, p, filters*mult*mult, itoa(2*blocks+i+1))
	}
	x = activation(x, "relu", auto("activation"))
	if c.includeTop {
		x = globalAvg(x, auto("global_average_pooling2d"))
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	file := func() (weightsFile, error) { // the cache's names are not the URLs'
		if c.includeTop {
			return weightsFile{"nasnet_mobile.h5", nasnetBase + "NASNet-mobile.h5", "020fb642bf7360b370c678b08e0adf61"}, nil
		}
		return weightsFile{"nasnet_mobile_no_top.h5", nasnetBase + "NASNet-mobile-no-top.h5", "1ed92395b5b598bdda52abe5c0dbfd63"}, nil
	}
	return c.finish(ctor, in, x, file)
}

func nasBN(x *layers.KerasTensor, name string) *layers.KerasTensor {
	return bn(x, name, layers.WithMomentum(0.9997), layers.WithEpsilon(1e-3))
}

func nasConv1x1(x *layers.KerasTensor, filters int, name string) *layers.KerasTensor {
	return conv(x, filters, 1, name, layers.WithPadding("same"), layers.WithUseBias(false), layers.WithKernelInitializer(layers.HeNormal()))
}

func relu(x *layers.KerasTensor) *layers.KerasTensor {
	return activation(x, "relu", auto("activation"))
}

// nasSepBlock is NASNet's separable block: ReLU, a separable convolution
// (strided ones padded by correctPad), batch normalization, ReLU, a
// second separable convolution, batch normalization.
func nasSepBlock(in *layers.KerasTensor, filters, kernel, stride int, id string) *layers.KerasTensor {
	x := relu(in)
	padding := "same"
	if stride == 2 {
		p := correctPad(x, kernel)
		x = pad(x, p[0], p[1], p[2], p[3], "separable_conv_1_pad_"+id)
		padding = "valid"
	}
	x = layers.Apply(layers.NewSeparableConv2D(filters, kernel, layers.WithStrides(stride), layers.WithPadding(padding),
		layers.WithUseBias(false), layers.WithName("separable_conv_1_"+id)), x)
	x = nasBN(x, "separable_conv_1_bn_"+id)
	x = relu(x)
	x = layers.Apply(layers.NewSeparableConv2D(filters, kernel, layers.WithPadding("same"), layers.WithUseBias(false),
		layers.WithName("separable_conv_2_"+id)), x)
	return nasBN(x, "separable_conv_2_bn_"+id)
}

// nasAdjust makes the previous cell's output p match ip: halved (two
// offset 1x1 average poolings and convolutions, concatenated) where its
// width differs, projected by a 1x1 convolution where its channels do.
func nasAdjust(p, ip *layers.KerasTensor, filters int, id string) *layers.KerasTensor {
	switch {
	case p == nil:
		return ip
	case p.Shape()[2] != ip.Shape()[2]:
		p = activation(p, "relu", "adjust_relu_1_"+id)
		p1 := avgPool(p, 1, 2, "adjust_avg_pool_1_"+id)
		p1 = nasConv1x1(p1, filters/2, "adjust_conv_1_"+id)
		p2 := pad(p, 0, 1, 0, 1, auto("zero_padding2d"))
		p2 = layers.Apply(layers.NewCropping2D(1, 0, 1, 0, layers.WithName(auto("cropping2d"))), p2)
		p2 = avgPool(p2, 1, 2, "adjust_avg_pool_2_"+id)
		p2 = nasConv1x1(p2, filters/2, "adjust_conv_2_"+id)
		p = concat(auto("concatenate"), p1, p2)
		return nasBN(p, "adjust_bn_"+id)
	case p.Shape()[3] != filters:
		p = relu(p)
		p = nasConv1x1(p, filters, "adjust_conv_projection_"+id)
		return nasBN(p, "adjust_bn_"+id)
	}
	return p
}

// nasNormalCell is NASNet-A's normal cell; it returns its output and its
// input (the next cell's previous output).
func nasNormalCell(ip, p *layers.KerasTensor, filters int, id string) (*layers.KerasTensor, *layers.KerasTensor) {
	p = nasAdjust(p, ip, filters, id)
	h := relu(ip)
	h = nasConv1x1(h, filters, "normal_conv_1_"+id)
	h = nasBN(h, "normal_bn_1_"+id)
	x11 := nasSepBlock(h, filters, 5, 1, "normal_left1_"+id)
	x12 := nasSepBlock(p, filters, 3, 1, "normal_right1_"+id)
	x1 := add("normal_add_1_"+id, x11, x12)
	x21 := nasSepBlock(p, filters, 5, 1, "normal_left2_"+id)
	x22 := nasSepBlock(p, filters, 3, 1, "normal_right2_"+id)
	x2 := add("normal_add_2_"+id, x21, x22)
	same := layers.WithPadding("same")
	x3 := avgPool(h, 3, 1, "normal_left3_"+id, same)
	x3 = add("normal_add_3_"+id, x3, p)
	x41 := avgPool(p, 3, 1, "normal_left4_"+id, same)
	x42 := avgPool(p, 3, 1, "normal_right4_"+id, same)
	x4 := add("normal_add_4_"+id, x41, x42)
	x5 := nasSepBlock(h, filters, 3, 1, "normal_left5_"+id)
	x5 = add("normal_add_5_"+id, x5, h)
	return concat("normal_concat_"+id, p, x1, x2, x3, x4, x5), ip
}

// nasReductionCell is NASNet-A's reduction cell, halving the size; it
// returns its output and its input.
func nasReductionCell(ip, p *layers.KerasTensor, filters int, id string) (*layers.KerasTensor, *layers.KerasTensor) {
	p = nasAdjust(p, ip, filters, id)
	h := relu(ip)
	h = nasConv1x1(h, filters, "reduction_conv_1_"+id)
	h = nasBN(h, "reduction_bn_1_"+id)
	cp := correctPad(h, 3)
	h3 := pad(h, cp[0], cp[1], cp[2], cp[3], "reduction_pad_1_"+id)
	x11 := nasSepBlock(h, filters, 5, 2, "reduction_left1_"+id)
	x12 := nasSepBlock(p, filters, 7, 2, "reduction_right1_"+id)
	x1 := add("reduction_add_1_"+id, x11, x12)
	x21 := maxPool(h3, 3, 2, "reduction_left2_"+id)
	x22 := nasSepBlock(p, filters, 7, 2, "reduction_right2_"+id)
	x2 := add("reduction_add_2_"+id, x21, x22)
	x31 := avgPool(h3, 3, 2, "reduction_left3_"+id)
	x32 := nasSepBlock(p, filters, 5, 2, "reduction_right3_"+id)
	x3 := add("reduction_add3_"+id, x31, x32)
	x4 := avgPool(x1, 3, 1, "reduction_left4_"+id, layers.WithPadding("same"))
	x4 = add(auto("add"), x2, x4)
	x51 := nasSepBlock(x1, filters, 3, 1, "reduction_left4_"+id)
	x52 := maxPool(h3, 3, 2, "reduction_right5_"+id)
	x5 := add("reduction_add4_"+id, x51, x52)
	return concat("reduction_concat_"+id, x2, x3, x4, x5), ip
}
