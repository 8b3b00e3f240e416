package applications

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const mobilenetV2Base = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"

// MobileNetV2 is keras.applications.MobileNetV2 (MobileNetV2: Inverted
// Residuals and Linear Bottlenecks, Sandler et al. 2018): 17 inverted
// residual blocks, widths scaled by alpha ([WithAlpha]; ImageNet weights
// for 0.35, 0.5, 0.75, 1, 1.3 and 1.4). Inputs of at least 32x32
// (ImageNet weights for 96, 128, 160, 192 and 224), preprocessed with
// [MobileNetV2PreprocessInput] (tf mode). The default name is
// "mobilenetv2_<alpha>_<rows>".
func MobileNetV2(opts ...Option) (*keras.Model, error) {
	const ctor = "MobileNetV2"
	c, err := newConfig(ctor, "", []string{"alpha"}, opts)
	if err != nil {
		return nil, err
	}
	sizes := []int{96, 128, 160, 192, 224}
	defaultSize := 224
	if s := c.inputShape; len(s) == 3 && s[0] == s[1] && slices.Contains(sizes, s[0]) {
		defaultSize = s[0]
	}
	rows, err := c.rows(ctor, defaultSize, 32)
	if err != nil {
		return nil, err
	}
	if c.weights == "imagenet" {
		if !slices.Contains([]float64{0.35, 0.5, 0.75, 1, 1.3, 1.4}, c.alpha) {
			return nil, fmt.Errorf("applications: MobileNetV2: ImageNet weights exist for alpha 0.35, 0.5, 0.75, 1, 1.3 and 1.4, got %v", c.alpha)
		}
		if !slices.Contains(sizes, rows) {
			rows = 224
		}
	}
	if c.alpha <= 0 {
		return nil, fmt.Errorf("applications: MobileNetV2: alpha must be positive, got %v", c.alpha)
	}
	if !c.set["name"] {
		c.name = fmt.Sprintf("mobilenetv2_%.2f_%s", c.alpha, dimText(rows))
	}
	in, err := c.input(ctor, defaultSize, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	bnOpts := []layers.Option{layers.WithEpsilon(1e-3), layers.WithMomentum(0.999)}
	x := conv(in, makeDivisible(32*c.alpha, 8), 3, "Conv1", layers.WithStrides(2), layers.WithPadding("same"), layers.WithUseBias(false))
	x = bn(x, "bn_Conv1", bnOpts...)
	x = relu6(x, "Conv1_relu")
	for id, b := range []struct{ filters, stride, expansion int }{{16, 1, 1}, {24, 2, 6}, {24, 1, 6}, {32, 2, 6}, {32, 1, 6},
		{32, 1, 6}, {64, 2, 6}, {64, 1, 6}, {64, 1, 6}, {64, 1, 6}, {96, 1, 6}, {96, 1, 6}, {96, 1, 6}, {160, 2, 6},
		{160, 1, 6}, {160, 1, 6}, {320, 1, 6}} {
		x = invertedResBlock(x, b.expansion, b.stride, c.alpha, b.filters, id)
	}
	last := 1280
	if c.alpha > 1 {
		last = makeDivisible(1280*c.alpha, 8)
	}
	x = conv(x, last, 1, "Conv_1", layers.WithUseBias(false))
	x = bn(x, "Conv_1_bn", bnOpts...)
	x = relu6(x, "out_relu")
	if c.includeTop {
		x = globalAvg(x, auto("global_average_pooling2d"))
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	file := func() (weightsFile, error) {
		name := fmt.Sprintf("mobilenet_v2_weights_tf_dim_ordering_tf_kernels_%s_%d.h5", pyFloat(c.alpha), rows)
		if !c.includeTop {
			name = fmt.Sprintf("mobilenet_v2_weights_tf_dim_ordering_tf_kernels_%s_%d_no_top.h5", pyFloat(c.alpha), rows)
		}
		return weightsFile{name, mobilenetV2Base + name, ""}, nil
	}
	return c.finish(ctor, in, x, file)
}

// invertedResBlock is MobileNetV2's block: a 1x1 expansion (not in the
// first block), a 3x3 depthwise convolution, a linear 1x1 projection,
// added to the input where the shapes allow.
func invertedResBlock(in *layers.KerasTensor, expansion, stride int, alpha float64, filters, id int) *layers.KerasTensor {
	bnOpts := []layers.Option{layers.WithEpsilon(1e-3), layers.WithMomentum(0.999)}
	inChannels := in.Shape()[3]
	pointwise := makeDivisible(float64(int(float64(filters)*alpha)), 8)
	x := in
	prefix := "block_" + itoa(id) + "_"
	if id > 0 {
		x = conv(x, expansion*inChannels, 1, prefix+"expand", layers.WithPadding("same"), layers.WithUseBias(false))
		x = bn(x, prefix+"expand_BN", bnOpts...)
		x = relu6(x, prefix+"expand_relu")
	} else {
		prefix = "expanded_conv_"
	}
	padding := "same"
	if stride == 2 {
		p := correctPad(x, 3)
		x = pad(x, p[0], p[1], p[2], p[3], prefix+"pad")
		padding = "valid"
	}
	x = layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithStrides(stride), layers.WithUseBias(false),
		layers.WithPadding(padding), layers.WithName(prefix+"depthwise")), x)
	x = bn(x, prefix+"depthwise_BN", bnOpts...)
	x = relu6(x, prefix+"depthwise_relu")
	x = conv(x, pointwise, 1, prefix+"project", layers.WithPadding("same"), layers.WithUseBias(false))
	x = bn(x, prefix+"project_BN", bnOpts...)
	if inChannels == pointwise && stride == 1 {
		return add(prefix+"add", in, x)
	}
	return x
}

// makeDivisible rounds v to a multiple of divisor, at least divisor and
// not more than 10% below v (the MobileNets' channel counts).
func makeDivisible(v float64, divisor int) int {
	n := max(divisor, int(v+float64(divisor)/2)/divisor*divisor)
	if float64(n) < 0.9*v {
		n += divisor
	}
	return n
}

// correctPad is Keras' imagenet_utils.correct_pad: the (top, bottom,
// left, right) zero padding before a strided kernel x kernel convolution
// with "valid" padding, one less at the top and left of an even size.
func correctPad(x *layers.KerasTensor, kernel int) [4]int {
	s := x.Shape()
	adjust := [2]int{1, 1}
	if s[1] != layers.None {
		adjust = [2]int{1 - s[1]%2, 1 - s[2]%2}
	}
	k := kernel / 2
	return [4]int{k - adjust[0], k, k - adjust[1], k}
}

// pyFloat is a float as Python's str prints it ("1.0", "0.35").
func pyFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
