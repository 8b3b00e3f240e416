package applications

import (
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const convnextBase = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"

// convnextHashes are the SHA-256 digests of the ConvNeXt weights, with
// the top and without.
var convnextHashes = map[string][2]string{
	"convnext_tiny":  {"8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff", "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"},
	"convnext_small": {"ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c", "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"},
	"convnext_base":  {"52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6", "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"},
}

// ConvNeXtTiny is keras.applications.ConvNeXtTiny (A ConvNet for the
// 2020s, Liu et al. 2022): stages of 3, 3, 9 and 3 blocks of 96, 192,
// 384 and 768 channels, each a 7x7 depthwise convolution (a Conv2D with
// groups), LayerNormalization, two Dense layers around a GELU and a
// LayerScale, added to its input (an Add operation node). 224x224 inputs
// by default (at least 32x32) of pixels in [0, 255], normalized by the
// model itself unless [WithIncludePreprocessing](false). The stem and the
// downsampling steps are nested Sequential models, as in Keras. Options:
// the common ones and WithIncludePreprocessing.
func ConvNeXtTiny(opts ...Option) (*keras.Model, error) {
	return convnext("ConvNeXtTiny", "convnext_tiny", []int{3, 3, 9, 3}, []int{96, 192, 384, 768}, opts)
}

// ConvNeXtSmall is keras.applications.ConvNeXtSmall: 27 blocks in the
// third stage.
func ConvNeXtSmall(opts ...Option) (*keras.Model, error) {
	return convnext("ConvNeXtSmall", "convnext_small", []int{3, 3, 27, 3}, []int{96, 192, 384, 768}, opts)
}

// ConvNeXtBase is keras.applications.ConvNeXtBase: [ConvNeXtSmall]'s
// depths with 128, 256, 512 and 1024 channels.
func ConvNeXtBase(opts ...Option) (*keras.Model, error) {
	return convnext("ConvNeXtBase", "convnext_base", []int{3, 3, 27, 3}, []int{128, 256, 512, 1024}, opts)
}

func convnext(ctor, variant string, depths, dims []int, opts []Option) (*keras.Model, error) {
	c, err := newConfig(ctor, variant, []string{"include_preprocessing"}, opts)
	if err != nil {
		return nil, err
	}
	if c.weights == "imagenet" && !strings.Contains(c.name, variant) {
		return nil, fmt.Errorf("applications: %s: with ImageNet weights the model's name must contain %q (Keras names the weights file after the model), got %q", ctor, variant, c.name)
	}
	in, err := c.input(ctor, 224, 32, c.includeTop)
	if err != nil {
		return nil, err
	}
	name := c.name
	eps := layers.WithEpsilon(1e-6)
	x := in
	if c.includePreprocessing && in.Shape()[3] == 3 {
		x = layers.Apply(layers.NewNormalization(layers.NormalizationSettings{Axis: []int{3},
			Mean:     []float64{0.485 * 255, 0.456 * 255, 0.406 * 255},
			Variance: []float64{(0.229 * 255) * (0.229 * 255), (0.224 * 255) * (0.224 * 255), (0.225 * 255) * (0.225 * 255)}},
			layers.WithName(name+"_prestem_normalization")), x)
	}
	down := make([]*keras.Model, 4)
	down[0], err = keras.NewNamedSequential(name+"_stem",
		layers.NewConv2D(dims[0], 4, layers.WithStrides(4), layers.WithName(name+"_stem_conv")),
		layers.NewLayerNormalization(eps, layers.WithName(name+"_stem_layernorm")))
	if err != nil {
		return nil, fmt.Errorf("applications: %s: %w", ctor, err)
	}
	for i := range 3 {
		down[i+1], err = keras.NewNamedSequential(fmt.Sprintf("%s_downsampling_block_%d", name, i),
			layers.NewLayerNormalization(eps, layers.WithName(fmt.Sprintf("%s_downsampling_layernorm_%d", name, i))),
			layers.NewConv2D(dims[i+1], 2, layers.WithStrides(2), layers.WithName(fmt.Sprintf("%s_downsampling_conv_%d", name, i))))
		if err != nil {
			return nil, fmt.Errorf("applications: %s: %w", ctor, err)
		}
	}
	for i := range 4 {
		x = down[i].Apply(x)
		for j := range depths[i] {
			x = convnextBlock(x, dims[i], 1e-6, fmt.Sprintf("%s_stage_%d_block_%d", name, i, j))
		}
	}
	if c.includeTop {
		x = globalAvg(x, name+"_head_gap")
		x = layers.Apply(layers.NewLayerNormalization(eps, layers.WithName(name+"_head_layernorm")), x)
		x = dense(x, c.classes, c.classifierActivation, name+"_head_dense")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
		x = layers.Apply(layers.NewLayerNormalization(eps, layers.WithName(auto("layer_normalization"))), x)
	}
	h := convnextHashes[variant]
	return c.finish(ctor, in, x, c.topFiles(convnextBase, name+".h5", h[0], name+"_notop.h5", h[1]))
}

// convnextBlock is a ConvNeXt block without stochastic depth (Keras'
// constructors build none): depthwise 7x7, LayerNormalization, Dense to
// 4x the channels, GELU, Dense back, LayerScale, an identity Activation,
// added to the input.
func convnextBlock(in *layers.KerasTensor, dim int, scaleInit float64, name string) *layers.KerasTensor {
	x := conv(in, dim, 7, name+"_depthwise_conv", layers.WithPadding("same"), layers.WithGroups(dim))
	x = layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-6), layers.WithName(name+"_layernorm")), x)
	x = dense(x, 4*dim, "", name+"_pointwise_conv_1")
	x = activation(x, "gelu", name+"_gelu")
	x = dense(x, dim, "", name+"_pointwise_conv_2")
	x = layers.Apply(layers.NewLayerScale(scaleInit, dim, layers.WithName(name+"_layer_scale")), x)
	x = activation(x, "linear", name+"_identity")
	return layers.CallOp("Add", nil, in, x)
}
