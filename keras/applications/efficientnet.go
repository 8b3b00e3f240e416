package applications

import (
	"math"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const efficientnetBase = "https://storage.googleapis.com/keras-applications/"

// efficientnetHashes are the MD5 digests of the EfficientNet weights,
// with the top and without.
var efficientnetHashes = map[string][2]string{
	"efficientnetb0": {"902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"},
	"efficientnetb1": {"1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"},
	"efficientnetb2": {"b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"},
	"efficientnetb3": {"ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"},
	"efficientnetb4": {"18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"},
	"efficientnetb5": {"ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"},
	"efficientnetb6": {"165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"},
	"efficientnetb7": {"8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"},
}

// effBlock is one stage of EfficientNet's block list: kernel, repeats,
// input and output channels, expansion, stride (squeeze-excite 0.25 and
// the identity skip in every stage).
type effBlock struct{ kernel, repeats, in, out, expand, stride int }

var efficientnetBlocks = []effBlock{
	{3, 1, 32, 16, 1, 1}, {3, 2, 16, 24, 6, 2}, {5, 2, 24, 40, 6, 2}, {3, 3, 40, 80, 6, 2},
	{5, 3, 80, 112, 6, 1}, {5, 4, 112, 192, 6, 2}, {3, 1, 192, 320, 6, 1},
}

// The initializers of Keras' EfficientNets (training from scratch).
var (
	effConvInit, _  = layers.VarianceScaling(2, "fan_out", "truncated_normal")
	effDenseInit, _ = layers.VarianceScaling(1.0/3, "fan_out", "uniform")
)

// EfficientNetB0 is keras.applications.EfficientNetB0 (EfficientNet:
// Rethinking Model Scaling for Convolutional Neural Networks, Tan and Le
// 2019): 224x224 inputs by default (at least 32x32) of pixels in [0, 255],
// which the model rescales and normalizes itself
// ([EfficientNetPreprocessInput] passes them through). With ImageNet
// weights the model divides the normalized pixels by the square roots of
// ImageNet's standard deviations once more, as Keras' does (an operation
// node here, a Rescaling layer of a list of scales in Keras). Options:
// the common ones.
func EfficientNetB0(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB0", "efficientnetb0", 1.0, 1.0, 224, 0.2, opts)
}

// EfficientNetB1 is keras.applications.EfficientNetB1: 240x240 inputs.
func EfficientNetB1(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB1", "efficientnetb1", 1.0, 1.1, 240, 0.2, opts)
}

// EfficientNetB2 is keras.applications.EfficientNetB2: 260x260 inputs.
func EfficientNetB2(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB2", "efficientnetb2", 1.1, 1.2, 260, 0.3, opts)
}

// EfficientNetB3 is keras.applications.EfficientNetB3: 300x300 inputs.
func EfficientNetB3(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB3", "efficientnetb3", 1.2, 1.4, 300, 0.3, opts)
}

// EfficientNetB4 is keras.applications.EfficientNetB4: 380x380 inputs.
func EfficientNetB4(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB4", "efficientnetb4", 1.4, 1.8, 380, 0.4, opts)
}

// EfficientNetB5 is keras.applications.EfficientNetB5: 456x456 inputs.
func EfficientNetB5(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB5", "efficientnetb5", 1.6, 2.2, 456, 0.4, opts)
}

// EfficientNetB6 is keras.applications.EfficientNetB6: 528x528 inputs.
func EfficientNetB6(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB6", "efficientnetb6", 1.8, 2.6, 528, 0.5, opts)
}

// EfficientNetB7 is keras.applications.EfficientNetB7: 600x600 inputs.
func EfficientNetB7(opts ...Option) (*keras.Model, error) {
	return efficientnet("EfficientNetB7", "efficientnetb7", 2.0, 3.1, 600, 0.5, opts)
}

func efficientnet(ctor, name string, width, depth float64, size int, dropout float64, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, name, nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, size, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	const dropConnect = 0.2
	filters := func(f int) int { return makeDivisible(float64(f)*width, 8) }
	repeats := func(r int) int { return int(math.Ceil(depth * float64(r))) }
	x := layers.Apply(layers.NewRescaling(1.0/255, layers.WithName(auto("rescaling"))), in)
	x = layers.Apply(layers.NewNormalization(layers.NormalizationSettings{Axis: []int{3}}, layers.WithName(auto("normalization"))), x)
	if c.weights == "imagenet" {
		std := []float64{0.229, 0.224, 0.225}
		scale := make([]float64, 3)
		for i, s := range std {
			scale[i] = 1 / math.Sqrt(s)
		}
		x = layers.CallOp("Multiply", nil, x, layers.OpArray{Shape: []int{3}, Values: scale, Dtype: "float32"})
	}
	p := correctPad(x, 3)
	x = pad(x, p[0], p[1], p[2], p[3], "stem_conv_pad")
	x = conv(x, filters(32), 3, "stem_conv", layers.WithStrides(2), layers.WithUseBias(false), layers.WithKernelInitializer(effConvInit))
	x = bn(x, "stem_bn")
	x = activation(x, "swish", "stem_activation")
	total := 0
	for _, b := range efficientnetBlocks {
		total += repeats(b.repeats)
	}
	n := 0
	for i, b := range efficientnetBlocks {
		fin, fout, stride := filters(b.in), filters(b.out), b.stride
		for j := range repeats(b.repeats) {
			if j > 0 {
				stride, fin = 1, fout
			}
			blockName := "block" + itoa(i+1) + string(rune('a'+j)) + "_"
			x = efficientnetBlock(x, dropConnect*float64(n)/float64(total), blockName, fin, fout, b.kernel, stride, b.expand)
			n++
		}
	}
	x = conv(x, filters(1280), 1, "top_conv", layers.WithPadding("same"), layers.WithUseBias(false), layers.WithKernelInitializer(effConvInit))
	x = bn(x, "top_bn")
	x = activation(x, "swish", "top_activation")
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		if dropout > 0 {
			x = layers.Apply(layers.NewDropout(dropout, layers.WithName("top_dropout")), x)
		}
		x = layers.Apply(layers.NewDense(c.classes, layers.WithActivation(c.classifierActivation),
			layers.WithKernelInitializer(effDenseInit), layers.WithName("predictions")), x)
	} else {
		x = c.pool(x, "avg_pool", "max_pool")
	}
	h := efficientnetHashes[name]
	return c.finish(ctor, in, x, c.topFiles(efficientnetBase, name+".h5", h[0], name+"_notop.h5", h[1]))
}

// efficientnetBlock is EfficientNet's MBConv block: a 1x1 expansion, a
// depthwise convolution, squeeze-excite (0.25 of the input channels), a
// linear 1x1 projection, and where the shapes allow a stochastic-depth
// Dropout (one draw per example) and the residual sum.
func efficientnetBlock(in *layers.KerasTensor, dropRate float64, name string, fin, fout, kernel, stride, expand int) *layers.KerasTensor {
	filters := fin * expand
	x := in
	if expand != 1 {
		x = conv(x, filters, 1, name+"expand_conv", layers.WithPadding("same"), layers.WithUseBias(false), layers.WithKernelInitializer(effConvInit))
		x = bn(x, name+"expand_bn")
		x = activation(x, "swish", name+"expand_activation")
	}
	padding := "same"
	if stride == 2 {
		p := correctPad(x, kernel)
		x = pad(x, p[0], p[1], p[2], p[3], name+"dwconv_pad")
		padding = "valid"
	}
	x = layers.Apply(layers.NewDepthwiseConv2D(kernel, layers.WithStrides(stride), layers.WithPadding(padding), layers.WithUseBias(false),
		layers.WithDepthwiseInitializer(effConvInit), layers.WithName(name+"dwconv")), x)
	x = bn(x, name+"bn")
	x = activation(x, "swish", name+"activation")
	se := globalAvg(x, name+"se_squeeze")
	se = layers.Apply(layers.NewReshape([]int{1, 1, filters}, layers.WithName(name+"se_reshape")), se)
	se = conv(se, max(1, int(float64(fin)*0.25)), 1, name+"se_reduce", layers.WithPadding("same"), layers.WithActivation("swish"),
		layers.WithKernelInitializer(effConvInit))
	se = conv(se, filters, 1, name+"se_expand", layers.WithPadding("same"), layers.WithActivation("sigmoid"), layers.WithKernelInitializer(effConvInit))
	x = layers.Apply(layers.NewMultiply(layers.WithName(name+"se_excite")), x, se)
	x = conv(x, fout, 1, name+"project_conv", layers.WithPadding("same"), layers.WithUseBias(false), layers.WithKernelInitializer(effConvInit))
	x = bn(x, name+"project_bn")
	if stride == 1 && fin == fout {
		if dropRate > 0 {
			x = layers.Apply(layers.NewDropout(dropRate, layers.WithNoiseShape(layers.None, 1, 1, 1), layers.WithName(name+"drop")), x)
		}
		x = add(name+"add", x, in)
	}
	return x
}
