package applications

import (
	"math"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const efficientnetV2Base = "https://storage.googleapis.com/tensorflow/keras-applications/efficientnet_v2/"

// efficientnetV2Hashes are the MD5 digests of the EfficientNetV2
// weights, with the top and without.
var efficientnetV2Hashes = map[string][2]string{
	"efficientnetv2-b0": {"21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"},
	"efficientnetv2-b1": {"069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"},
	"efficientnetv2-b2": {"424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"},
	"efficientnetv2-b3": {"1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"},
	"efficientnetv2-s":  {"e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"},
}

// effV2Block is one stage of an EfficientNetV2 block list: kernel,
// repeats, input and output channels, expansion, stride,
// squeeze-excite ratio, and whether its blocks are fused (a full
// convolution for the expansion and depthwise steps).
type effV2Block struct {
	kernel, repeats, in, out, expand, stride int
	se                                       float64
	fused                                    bool
}

var (
	efficientnetV2BBlocks = []effV2Block{
		{3, 1, 32, 16, 1, 1, 0, true}, {3, 2, 16, 32, 4, 2, 0, true}, {3, 2, 32, 48, 4, 2, 0, true},
		{3, 3, 48, 96, 4, 2, 0.25, false}, {3, 5, 96, 112, 6, 1, 0.25, false}, {3, 8, 112, 192, 6, 2, 0.25, false},
	}
	efficientnetV2SBlocks = []effV2Block{
		{3, 2, 24, 24, 1, 1, 0, true}, {3, 4, 24, 48, 4, 2, 0, true}, {3, 4, 48, 64, 4, 2, 0, true},
		{3, 6, 64, 128, 4, 2, 0.25, false}, {3, 9, 128, 160, 6, 1, 0.25, false}, {3, 15, 160, 256, 6, 2, 0.25, false},
	}
)

// EfficientNetV2B0 is keras.applications.EfficientNetV2B0
// (EfficientNetV2: Smaller Models and Faster Training, Tan and Le 2021):
// 224x224 inputs by default (at least 32x32) of pixels in [0, 255], which
// the model rescales and normalizes itself unless
// [WithIncludePreprocessing](false). Options: the common ones and
// WithIncludePreprocessing.
func EfficientNetV2B0(opts ...Option) (*keras.Model, error) {
	return efficientnetV2("EfficientNetV2B0", "efficientnetv2-b0", 1.0, 1.0, 224, efficientnetV2BBlocks, opts)
}

// EfficientNetV2B1 is keras.applications.EfficientNetV2B1: 240x240 inputs.
func EfficientNetV2B1(opts ...Option) (*keras.Model, error) {
	return efficientnetV2("EfficientNetV2B1", "efficientnetv2-b1", 1.0, 1.1, 240, efficientnetV2BBlocks, opts)
}

// EfficientNetV2B2 is keras.applications.EfficientNetV2B2: 260x260 inputs.
func EfficientNetV2B2(opts ...Option) (*keras.Model, error) {
	return efficientnetV2("EfficientNetV2B2", "efficientnetv2-b2", 1.1, 1.2, 260, efficientnetV2BBlocks, opts)
}

// EfficientNetV2B3 is keras.applications.EfficientNetV2B3: 300x300 inputs.
func EfficientNetV2B3(opts ...Option) (*keras.Model, error) {
	return efficientnetV2("EfficientNetV2B3", "efficientnetv2-b3", 1.2, 1.4, 300, efficientnetV2BBlocks, opts)
}

// EfficientNetV2S is keras.applications.EfficientNetV2S: 384x384 inputs,
// rescaled to [-1, 1] by the model.
func EfficientNetV2S(opts ...Option) (*keras.Model, error) {
	return efficientnetV2("EfficientNetV2S", "efficientnetv2-s", 1.0, 1.0, 384, efficientnetV2SBlocks, opts)
}

func efficientnetV2(ctor, name string, width, depth float64, size int, blocks []effV2Block, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, name, []string{"include_preprocessing"}, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, size, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	filters := func(f int) int { return max(8, int(float64(f)*width+4)/8*8) }
	bnm := layers.WithMomentum(0.9)
	x := in
	if c.includePreprocessing {
		if name != "efficientnetv2-s" && in.Shape()[3] == 3 {
			x = layers.Apply(layers.NewRescaling(1.0/255, layers.WithName(auto("rescaling"))), x)
			x = layers.Apply(layers.NewNormalization(layers.NormalizationSettings{Axis: []int{3},
				Mean: []float64{0.485, 0.456, 0.406}, Variance: []float64{0.229 * 0.229, 0.224 * 0.224, 0.225 * 0.225}},
				layers.WithName(auto("normalization"))), x)
		} else {
			x = layers.Apply(layers.NewRescaling(1.0/128, layers.WithOffset(-1), layers.WithName(auto("rescaling"))), x)
		}
	}
	x = conv(x, filters(blocks[0].in), 3, "stem_conv", layers.WithStrides(2), layers.WithPadding("same"), layers.WithUseBias(false),
		layers.WithKernelInitializer(effConvInit))
	x = bn(x, "stem_bn", bnm)
	x = activation(x, "swish", "stem_activation")
	total := 0
	for _, b := range blocks {
		total += b.repeats
	}
	n := 0
	for i, b := range blocks {
		fin, fout, stride := filters(b.in), filters(b.out), b.stride
		for j := range int(math.Ceil(depth * float64(b.repeats))) {
			if j > 0 {
				stride, fin = 1, fout
			}
			blockName := "block" + itoa(i+1) + string(rune('a'+j)) + "_"
			x = efficientnetV2Block(x, b, fin, fout, stride, 0.2*float64(n)/float64(total), blockName)
			n++
		}
	}
	x = conv(x, filters(1280), 1, "top_conv", layers.WithPadding("same"), layers.WithUseBias(false), layers.WithKernelInitializer(effConvInit))
	x = bn(x, "top_bn", bnm)
	x = activation(x, "swish", "top_activation")
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		x = layers.Apply(layers.NewDropout(0.2, layers.WithName("top_dropout")), x)
		x = layers.Apply(layers.NewDense(c.classes, layers.WithActivation(c.classifierActivation),
			layers.WithKernelInitializer(effDenseInit), layers.WithName("predictions")), x)
	} else {
		x = c.pool(x, "avg_pool", "max_pool")
	}
	h := efficientnetV2Hashes[name]
	return c.finish(ctor, in, x, c.topFiles(efficientnetV2Base, name+".h5", h[0], name+"_notop.h5", h[1]))
}

// efficientnetV2Block is an MBConv block (1x1 expansion, depthwise
// convolution, squeeze-excite, 1x1 projection) or a fused one (a full
// convolution expands, a 1x1 projects; without expansion one convolution
// and an activation), with the stochastic-depth Dropout and residual sum
// where the shapes allow.
func efficientnetV2Block(in *layers.KerasTensor, b effV2Block, fin, fout, stride int, survival float64, name string) *layers.KerasTensor {
	bnm := layers.WithMomentum(0.9)
	ci := layers.WithKernelInitializer(effConvInit)
	filters := fin * b.expand
	x := in
	if b.expand != 1 {
		k, s := 1, 1
		if b.fused {
			k, s = b.kernel, stride
		}
		x = conv(x, filters, k, name+"expand_conv", layers.WithStrides(s), layers.WithPadding("same"), layers.WithUseBias(false), ci)
		x = bn(x, name+"expand_bn", bnm)
		x = activation(x, "swish", name+"expand_activation")
	}
	if !b.fused {
		x = layers.Apply(layers.NewDepthwiseConv2D(b.kernel, layers.WithStrides(stride), layers.WithPadding("same"), layers.WithUseBias(false),
			layers.WithDepthwiseInitializer(effConvInit), layers.WithName(name+"dwconv2")), x)
		x = bn(x, name+"bn", bnm)
		x = activation(x, "swish", name+"activation")
	}
	if b.se > 0 && b.se <= 1 {
		se := globalAvg(x, name+"se_squeeze")
		se = layers.Apply(layers.NewReshape([]int{1, 1, filters}, layers.WithName(name+"se_reshape")), se)
		se = conv(se, max(1, int(float64(fin)*b.se)), 1, name+"se_reduce", layers.WithPadding("same"), layers.WithActivation("swish"), ci)
		se = conv(se, filters, 1, name+"se_expand", layers.WithPadding("same"), layers.WithActivation("sigmoid"), ci)
		x = layers.Apply(layers.NewMultiply(layers.WithName(name+"se_excite")), x, se)
	}
	k, s := 1, 1
	if b.fused && b.expand == 1 {
		k, s = b.kernel, stride
	}
	x = conv(x, fout, k, name+"project_conv", layers.WithStrides(s), layers.WithPadding("same"), layers.WithUseBias(false), ci)
	x = bn(x, name+"project_bn", bnm)
	if b.fused && b.expand == 1 {
		x = activation(x, "swish", name+"project_activation")
	}
	if stride == 1 && fin == fout {
		if survival > 0 {
			x = layers.Apply(layers.NewDropout(survival, layers.WithNoiseShape(layers.None, 1, 1, 1), layers.WithName(name+"drop")), x)
		}
		x = add(name+"add", x, in)
	}
	return x
}
