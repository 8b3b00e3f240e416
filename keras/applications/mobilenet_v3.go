package applications

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const mobilenetV3Base = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"

// mobilenetV3Hashes are the MD5 digests of the MobileNetV3 weights, with
// the top and without, by Keras' model name.
var mobilenetV3Hashes = map[string][2]string{
	"large_224_0.75_float":             {"765b44a33ad4005b3ac83185abf1d0eb", "40af19a13ebea4e2ee0c676887f69a2e"},
	"large_224_1.0_float":              {"59e551e166be033d707958cf9e29a6a7", "07fb09a5933dd0c8eaafa16978110389"},
	"large_minimalistic_224_1.0_float": {"675e7b876c45c57e9e63e6d90a36599c", "ec5221f64a2f6d1ef965a614bdae7973"},
	"small_224_0.75_float":             {"cb65d4e5be93758266aa0a7f2c6708b7", "ebdb5cc8e0b497cd13a7c275d475c819"},
	"small_224_1.0_float":              {"8768d4c2e7dee89b9d02b2d03d65d862", "d3e8ec802a04aa4fc771ee12a9a9b836"},
	"small_minimalistic_224_1.0_float": {"99cd97fb2fcdad2bf028eb838de69e37", "cde8136e733e811080d9fcd8a252f7e4"},
}

// v3Block is one inverted residual block of a MobileNetV3: its expansion
// factor, output channels (before alpha), kernel (0: the model's, 5 or 3
// when minimalistic), stride, whether it has squeeze-excite, and whether
// it uses the model's activation (hard-swish, ReLU when minimalistic)
// rather than ReLU.
type v3Block struct {
	expansion      float64
	filters        int
	kernel, stride int
	se, modelAct   bool
}

// MobileNetV3Small is keras.applications.MobileNetV3Small (Searching for
// MobileNetV3, Howard et al. 2019): 11 inverted residual blocks with
// squeeze-excite and hard-swish ([WithMinimalistic]: without them, 3x3
// kernels), widths scaled by [WithAlpha] (ImageNet weights for 0.75 and
// 1, 1 when minimalistic). Inputs of any size of at least 32x32 (None by
// default, even with the top) of pixels in [0, 255]: the model rescales
// them itself unless [WithIncludePreprocessing](false). Options: the
// common ones, WithAlpha, WithMinimalistic, [WithDropoutRate] (default
// 0.2), WithIncludePreprocessing.
func MobileNetV3Small(opts ...Option) (*keras.Model, error) {
	return mobilenetV3("MobileNetV3Small", "small", 1024, []v3Block{
		{1, 16, 3, 2, true, false}, {72.0 / 16, 24, 3, 2, false, false}, {88.0 / 24, 24, 3, 1, false, false},
		{4, 40, 0, 2, true, true}, {6, 40, 0, 1, true, true}, {6, 40, 0, 1, true, true}, {3, 48, 0, 1, true, true},
		{3, 48, 0, 1, true, true}, {6, 96, 0, 2, true, true}, {6, 96, 0, 1, true, true}, {6, 96, 0, 1, true, true},
	}, opts)
}

// MobileNetV3Large is keras.applications.MobileNetV3Large: 15 blocks, a
// 1280-channel head. See [MobileNetV3Small] for the options.
func MobileNetV3Large(opts ...Option) (*keras.Model, error) {
	return mobilenetV3("MobileNetV3Large", "large", 1280, []v3Block{
		{1, 16, 3, 1, false, false}, {4, 24, 3, 2, false, false}, {3, 24, 3, 1, false, false},
		{3, 40, 0, 2, true, false}, {3, 40, 0, 1, true, false}, {3, 40, 0, 1, true, false},
		{6, 80, 3, 2, false, true}, {2.5, 80, 3, 1, false, true}, {2.3, 80, 3, 1, false, true}, {2.3, 80, 3, 1, false, true},
		{6, 112, 3, 1, true, true}, {6, 112, 3, 1, true, true},
		{6, 160, 0, 2, true, true}, {6, 160, 0, 1, true, true}, {6, 160, 0, 1, true, true},
	}, opts)
}

func mobilenetV3(ctor, kind string, lastPoint int, blocks []v3Block, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, ctor, []string{"alpha", "minimalistic", "dropout_rate", "include_preprocessing"}, opts)
	if err != nil {
		return nil, err
	}
	shape := c.inputShape
	if c.inputTensor != nil && shape == nil {
		s := c.inputTensor.Shape()
		if len(s) == 4 {
			shape = []int{s[1], s[2], s[3]}
		}
	}
	if shape == nil {
		shape = []int{layers.None, layers.None, 3}
	}
	if len(shape) != 3 {
		return nil, fmt.Errorf("applications: %s: input_shape must be (height, width, channels), got %v", ctor, shape)
	}
	if shape[0] != layers.None && shape[1] != layers.None && (shape[0] < 32 || shape[1] < 32) {
		return nil, fmt.Errorf("applications: %s: input size must be at least 32x32, got input_shape %v", ctor, shape)
	}
	if c.alpha <= 0 {
		return nil, fmt.Errorf("applications: %s: alpha must be positive, got %v", ctor, c.alpha)
	}
	if c.weights == "imagenet" && (!c.minimalistic && c.alpha != 0.75 && c.alpha != 1 || c.minimalistic && c.alpha != 1) {
		return nil, fmt.Errorf("applications: %s: ImageNet weights exist for alpha 0.75 and 1 (1 when minimalistic), got %v", ctor, c.alpha)
	}
	var in *layers.KerasTensor
	if c.inputTensor != nil {
		if in, err = c.input(ctor, 224, 32, false); err != nil {
			return nil, err
		}
	} else {
		in = layers.Input(shape, layers.WithName(auto("input_layer")))
	}
	kernel, se := 5, true
	act := func(x *layers.KerasTensor) *layers.KerasTensor {
		return activation(x, "hard_swish", auto("activation"))
	}
	if c.minimalistic {
		kernel, se = 3, false
		act = v3ReLU
	}
	bnOpts := []layers.Option{layers.WithEpsilon(1e-3), layers.WithMomentum(0.999)}
	x := in
	if c.includePreprocessing {
		x = layers.Apply(layers.NewRescaling(1.0/127.5, layers.WithOffset(-1), layers.WithName(auto("rescaling"))), x)
	}
	x = conv(x, 16, 3, "conv", layers.WithStrides(2), layers.WithPadding("same"), layers.WithUseBias(false))
	x = bn(x, "conv_bn", bnOpts...)
	x = act(x)
	for id, b := range blocks {
		k := b.kernel
		if k == 0 {
			k = kernel
		}
		blockAct := v3ReLU
		if b.modelAct {
			blockAct = act
		}
		x = v3InvertedResBlock(x, b.expansion, makeDivisible(float64(b.filters)*c.alpha, 8), k, b.stride, b.se && se, blockAct, id)
	}
	lastConv := makeDivisible(float64(x.Shape()[3]*6), 8)
	if c.alpha > 1 {
		lastPoint = makeDivisible(float64(lastPoint)*c.alpha, 8)
	}
	x = conv(x, lastConv, 1, "conv_1", layers.WithPadding("same"), layers.WithUseBias(false))
	x = bn(x, "conv_1_bn", bnOpts...)
	x = act(x)
	if c.includeTop {
		x = globalAvg(x, auto("global_average_pooling2d"), layers.WithKeepDims(true))
		x = conv(x, lastPoint, 1, "conv_2", layers.WithPadding("same"))
		x = act(x)
		if c.dropoutRate > 0 {
			x = layers.Apply(layers.NewDropout(c.dropoutRate, layers.WithName(auto("dropout"))), x)
		}
		x = conv(x, c.classes, 1, "logits", layers.WithPadding("same"))
		x = layers.Apply(layers.NewFlatten(layers.WithName(auto("flatten"))), x)
		x = activation(x, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, "avg_pool", "max_pool")
	}
	file := func() (weightsFile, error) {
		model := kind
		if c.minimalistic {
			model += "_minimalistic"
		}
		model += "_224_" + pyFloat(c.alpha) + "_float"
		h := mobilenetV3Hashes[model]
		if c.includeTop {
			name := "weights_mobilenet_v3_" + model + ".h5"
			return weightsFile{name, mobilenetV3Base + name, h[0]}, nil
		}
		name := "weights_mobilenet_v3_" + model + "_no_top_v2.h5"
		return weightsFile{name, mobilenetV3Base + name, h[1]}, nil
	}
	return c.finish(ctor, in, x, file)
}

func v3ReLU(x *layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.NewReLU(layers.WithName(auto("re_lu"))), x)
}

// hardSigmoid is MobileNetV3's hard sigmoid, relu6(x + 3) / 6, as Keras
// writes it: operation nodes (Add, Multiply with constants) around a
// ReLU layer.
func hardSigmoid(x *layers.KerasTensor) *layers.KerasTensor {
	relu := layers.NewReLU(layers.WithMaxValue(6), layers.WithName(auto("re_lu")))
	y := layers.Apply(relu, layers.CallOp("Add", nil, x, 3.0))
	return layers.CallOp("Multiply", nil, y, 1.0/6.0)
}

// v3SEBlock is squeeze-excite: the channels' means through a reducing
// and an expanding 1x1 convolution, a hard sigmoid, scaling the input.
func v3SEBlock(in *layers.KerasTensor, filters int, ratio float64, prefix string) *layers.KerasTensor {
	x := globalAvg(in, prefix+"squeeze_excite_avg_pool", layers.WithKeepDims(true))
	x = conv(x, makeDivisible(float64(filters)*ratio, 8), 1, prefix+"squeeze_excite_conv", layers.WithPadding("same"))
	x = layers.Apply(layers.NewReLU(layers.WithName(prefix+"squeeze_excite_relu")), x)
	x = conv(x, filters, 1, prefix+"squeeze_excite_conv_1", layers.WithPadding("same"))
	x = hardSigmoid(x)
	return layers.Apply(layers.NewMultiply(layers.WithName(prefix+"squeeze_excite_mul")), in, x)
}

func v3InvertedResBlock(x *layers.KerasTensor, expansion float64, filters, kernel, stride int, se bool,
	act func(*layers.KerasTensor) *layers.KerasTensor, id int) *layers.KerasTensor {
	bnOpts := []layers.Option{layers.WithEpsilon(1e-3), layers.WithMomentum(0.999)}
	shortcut := x
	prefix := "expanded_conv_"
	inFilters := x.Shape()[3]
	expanded := makeDivisible(float64(inFilters)*expansion, 8)
	if id > 0 {
		prefix = "expanded_conv_" + itoa(id) + "_"
		x = conv(x, expanded, 1, prefix+"expand", layers.WithPadding("same"), layers.WithUseBias(false))
		x = bn(x, prefix+"expand_bn", bnOpts...)
		x = act(x)
	}
	padding := "same"
	if stride == 2 {
		p := correctPad(x, kernel)
		x = pad(x, p[0], p[1], p[2], p[3], prefix+"depthwise_pad")
		padding = "valid"
	}
	x = layers.Apply(layers.NewDepthwiseConv2D(kernel, layers.WithStrides(stride), layers.WithPadding(padding),
		layers.WithUseBias(false), layers.WithName(prefix+"depthwise")), x)
	x = bn(x, prefix+"depthwise_bn", bnOpts...)
	x = act(x)
	if se {
		x = v3SEBlock(x, expanded, 0.25, prefix)
	}
	x = conv(x, filters, 1, prefix+"project", layers.WithPadding("same"), layers.WithUseBias(false))
	x = bn(x, prefix+"project_bn", bnOpts...)
	if stride == 1 && inFilters == filters {
		x = add(prefix+"add", shortcut, x)
	}
	return x
}
