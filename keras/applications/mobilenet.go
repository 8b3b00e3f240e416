package applications

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const mobilenetBase = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"

// MobileNet is keras.applications.MobileNet (MobileNets: Efficient
// Convolutional Neural Networks for Mobile Vision Applications, Howard
// et al. 2017): a convolution and 13 depthwise-separable blocks, each
// width scaled by alpha ([WithAlpha]: 0.25, 0.5, 0.75 or 1 for ImageNet
// weights) with [WithDepthMultiplier] depthwise filters per channel (1
// for ImageNet weights), and [WithDropout] (default 0.001) before the
// top's 1x1 convolution. Inputs of at least 32x32 (ImageNet weights for
// 128, 160, 192 and 224), preprocessed with [MobileNetPreprocessInput]
// (tf mode). The default name is "mobilenet_<alpha>_<rows>".
func MobileNet(opts ...Option) (*keras.Model, error) {
	const ctor = "MobileNet"
	c, err := newConfig(ctor, "", []string{"alpha", "depth_multiplier", "dropout"}, opts)
	if err != nil {
		return nil, err
	}
	defaultSize := 224
	if s := c.inputShape; len(s) == 3 && s[0] == s[1] && slices.Contains([]int{128, 160, 192, 224}, s[0]) {
		defaultSize = s[0]
	}
	rows, err := c.rows(ctor, defaultSize, 32)
	if err != nil {
		return nil, err
	}
	alphaText := map[float64]string{1: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}[c.alpha]
	if c.weights == "imagenet" {
		if c.depthMultiplier != 1 {
			return nil, fmt.Errorf("applications: MobileNet: ImageNet weights need depth_multiplier 1, got %d", c.depthMultiplier)
		}
		if alphaText == "" {
			return nil, fmt.Errorf("applications: MobileNet: ImageNet weights exist for alpha 0.25, 0.5, 0.75 and 1, got %v", c.alpha)
		}
		if !slices.Contains([]int{128, 160, 192, 224}, rows) {
			rows = 224 // Keras loads the 224 weights then (with a warning)
		}
	}
	if !c.set["name"] {
		c.name = fmt.Sprintf("mobilenet_%.2f_%s", c.alpha, dimText(rows))
	}
	in, err := c.input(ctor, defaultSize, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	if c.depthMultiplier <= 0 || c.alpha <= 0 {
		return nil, fmt.Errorf("applications: MobileNet: alpha %v and depth_multiplier %d must be positive", c.alpha, c.depthMultiplier)
	}
	x := conv(in, int(32*c.alpha), 3, "conv1", layers.WithPadding("same"), layers.WithUseBias(false), layers.WithStrides(2))
	x = bn(x, "conv1_bn")
	x = relu6(x, "conv1_relu")
	for i, b := range []struct{ filters, stride int }{{64, 1}, {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},
		{512, 1}, {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}} {
		x = mobilenetBlock(x, int(float64(b.filters)*c.alpha), c.depthMultiplier, b.stride, i+1)
	}
	if c.includeTop {
		x = globalAvg(x, auto("global_average_pooling2d"), layers.WithKeepDims(true))
		x = layers.Apply(layers.NewDropout(c.dropout, layers.WithName("dropout")), x)
		x = conv(x, c.classes, 1, "conv_preds", layers.WithPadding("same"))
		x = layers.Apply(layers.NewReshape([]int{c.classes}, layers.WithName("reshape_2")), x)
		x = activation(x, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	file := func() (weightsFile, error) {
		name := fmt.Sprintf("mobilenet_%s_%d_tf.h5", alphaText, rows)
		if !c.includeTop {
			name = fmt.Sprintf("mobilenet_%s_%d_tf_no_top.h5", alphaText, rows)
		}
		return weightsFile{name, mobilenetBase + name, ""}, nil
	}
	return c.finish(ctor, in, x, file)
}

// mobilenetBlock is a depthwise-separable block: a 3x3 depthwise
// convolution (padded at the bottom and right where it strides) and a
// 1x1 convolution, each with batch normalization and ReLU6.
func mobilenetBlock(x *layers.KerasTensor, filters, mult, stride, id int) *layers.KerasTensor {
	n := itoa(id)
	padding := "same"
	if stride != 1 {
		x = pad(x, 0, 1, 0, 1, "conv_pad_"+n)
		padding = "valid"
	}
	x = layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithPadding(padding), layers.WithDepthMultiplier(mult),
		layers.WithStrides(stride), layers.WithUseBias(false), layers.WithName("conv_dw_"+n)), x)
	x = bn(x, "conv_dw_"+n+"_bn")
	x = relu6(x, "conv_dw_"+n+"_relu")
	x = conv(x, filters, 1, "conv_pw_"+n, layers.WithPadding("same"), layers.WithUseBias(false))
	x = bn(x, "conv_pw_"+n+"_bn")
	return relu6(x, "conv_pw_"+n+"_relu")
}

func relu6(x *layers.KerasTensor, name string) *layers.KerasTensor {
	return layers.Apply(layers.NewReLU(layers.WithMaxValue(6), layers.WithName(name)), x)
}

// rows is the input's height as Keras' MobileNets read it to name the
// model and its weights file: the given input shape's (after Keras'
// checks), or the default size with the top, None without.
func (c *config) rows(ctor string, defaultSize, minSize int) (int, error) {
	if c.inputTensor != nil {
		if s := c.inputTensor.Shape(); len(s) == 4 {
			return s[1], nil
		}
	}
	s, err := c.inputShape3(ctor, defaultSize, minSize, c.includeTop)
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

// dimText is a dimension as Python prints it: None for an unknown size.
func dimText(d int) string {
	if d == layers.None {
		return "None"
	}
	return itoa(d)
}
