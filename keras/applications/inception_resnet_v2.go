package applications

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

const inceptionResNetV2Base = "https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/"

// InceptionResNetV2 is keras.applications.InceptionResNetV2
// (Inception-v4, Inception-ResNet and the Impact of Residual Connections
// on Learning, Szegedy et al. 2016): 299x299 inputs by default (at least
// 75x75), preprocessed with [InceptionResNetV2PreprocessInput] (tf
// mode). Its residual sums are [CustomScaleLayer]s. Options: the common
// ones.
func InceptionResNetV2(opts ...Option) (*keras.Model, error) {
	const ctor = "InceptionResNetV2"
	c, err := newConfig(ctor, "inception_resnet_v2", nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, 299, 75, c.includeTop)
	if err != nil {
		return nil, err
	}
	cb := func(x *layers.KerasTensor, filters, rows, cols int, opts ...layers.Option) *layers.KerasTensor {
		return irConvBN(x, filters, rows, cols, "", "relu", opts...)
	}
	valid := layers.WithPadding("valid")
	s2 := layers.WithStrides(2)
	x := cb(in, 32, 3, 3, s2, valid)
	x = cb(x, 32, 3, 3, valid)
	x = cb(x, 64, 3, 3)
	x = maxPool(x, 3, 2, auto("max_pooling2d"))
	x = cb(x, 80, 1, 1, valid)
	x = cb(x, 192, 3, 3, valid)
	x = maxPool(x, 3, 2, auto("max_pooling2d"))

	// mixed 5b (Inception-A block): 35 x 35 x 320
	b0 := cb(x, 96, 1, 1)
	b1 := cb(x, 48, 1, 1)
	b1 = cb(b1, 64, 5, 5)
	b2 := cb(x, 64, 1, 1)
	b2 = cb(b2, 96, 3, 3)
	b2 = cb(b2, 96, 3, 3)
	bp := avgPool(x, 3, 1, auto("average_pooling2d"), layers.WithPadding("same"))
	bp = cb(bp, 64, 1, 1)
	x = concat("mixed_5b", b0, b1, b2, bp)
	for i := 1; i <= 10; i++ {
		x = inceptionResNetBlock(x, 0.17, "block35", i, "relu")
	}
	// mixed 6a (Reduction-A block): 17 x 17 x 1088
	b0 = cb(x, 384, 3, 3, s2, valid)
	b1 = cb(x, 256, 1, 1)
	b1 = cb(b1, 256, 3, 3)
	b1 = cb(b1, 384, 3, 3, s2, valid)
	bp = maxPool(x, 3, 2, auto("max_pooling2d"))
	x = concat("mixed_6a", b0, b1, bp)
	for i := 1; i <= 20; i++ {
		x = inceptionResNetBlock(x, 0.1, "block17", i, "relu")
	}
	// mixed 7a (Reduction-B block): 8 x 8 x 2080
	b0 = cb(x, 256, 1, 1)
	b0 = cb(b0, 384, 3, 3, s2, valid)
	b1 = cb(x, 256, 1, 1)
	b1 = cb(b1, 288, 3, 3, s2, valid)
	b2 = cb(x, 256, 1, 1)
	b2 = cb(b2, 288, 3, 3)
	b2 = cb(b2, 320, 3, 3, s2, valid)
	bp = maxPool(x, 3, 2, auto("max_pooling2d"))
	x = concat("mixed_7a", b0, b1, b2, bp)
	for i := 1; i <= 9; i++ {
		x = inceptionResNetBlock(x, 0.2, "block8", i, "relu")
	}
	x = inceptionResNetBlock(x, 1, "block8", 10, "")
	x = irConvBN(x, 1536, 1, 1, "conv_7b", "relu")
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	return c.finish(ctor, in, x, c.topFiles(inceptionResNetV2Base, "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5",
		"e693bd0210a403b3192acc6073ad2e96", "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
		"d19885ff4a710c122648d3b5c3b684e4"))
}

// irConvBN is Inception-ResNet's conv2d_bn: a convolution ("same"
// padding unless an option says otherwise) without bias, batch
// normalization without scale and the activation; named name,
// name+"_bn", name+"_ac", or Keras' default names when name is "".
func irConvBN(x *layers.KerasTensor, filters, rows, cols int, name, act string, opts ...layers.Option) *layers.KerasTensor {
	convName, bnName, acName := name, name+"_bn", name+"_ac"
	if name == "" {
		convName = auto("conv2d")
	}
	o := append([]layers.Option{layers.WithKernelSize(rows, cols), layers.WithPadding("same"), layers.WithUseBias(false)}, opts...)
	x = conv(x, filters, rows, convName, o...)
	if name == "" {
		bnName = auto("batch_normalization")
	}
	x = bn(x, bnName, layers.WithScale(false))
	if act == "" {
		return x
	}
	if name == "" {
		acName = auto("activation")
	}
	return activation(x, act, acName)
}

// inceptionResNetBlock is an Inception-ResNet block of the given type
// (block35, block17, block8): its branches concatenated, a 1x1
// convolution with bias back to the input's channels, added to the
// input scaled by scale, then the activation ("" for none).
func inceptionResNetBlock(x *layers.KerasTensor, scale float64, kind string, idx int, act string) *layers.KerasTensor {
	cb := func(x *layers.KerasTensor, filters, rows, cols int) *layers.KerasTensor {
		return irConvBN(x, filters, rows, cols, "", "relu")
	}
	var branches []*layers.KerasTensor
	switch kind {
	case "block35":
		b0 := cb(x, 32, 1, 1)
		b1 := cb(x, 32, 1, 1)
		b1 = cb(b1, 32, 3, 3)
		b2 := cb(x, 32, 1, 1)
		b2 = cb(b2, 48, 3, 3)
		b2 = cb(b2, 64, 3, 3)
		branches = []*layers.KerasTensor{b0, b1, b2}
	case "block17":
		b0 := cb(x, 192, 1, 1)
		b1 := cb(x, 128, 1, 1)
		b1 = cb(b1, 160, 1, 7)
		b1 = cb(b1, 192, 7, 1)
		branches = []*layers.KerasTensor{b0, b1}
	default: // block8
		b0 := cb(x, 192, 1, 1)
		b1 := cb(x, 192, 1, 1)
		b1 = cb(b1, 224, 1, 3)
		b1 = cb(b1, 256, 3, 1)
		branches = []*layers.KerasTensor{b0, b1}
	}
	name := kind + "_" + itoa(idx)
	mixed := concat(name+"_mixed", branches...)
	up := conv(mixed, x.Shape()[3], 1, name+"_conv", layers.WithPadding("same"))
	x = layers.Apply(NewCustomScaleLayer(scale, layers.WithName(auto("custom_scale_layer"))), x, up)
	if act != "" {
		x = activation(x, act, name+"_ac")
	}
	return x
}

// CustomScaleLayer is Keras' keras.src.applications.inception_resnet_v2
// CustomScaleLayer: inputs[0] + inputs[1] * scale, Inception-ResNet's
// scaled residual sum. It has no weights.
type CustomScaleLayer struct {
	layers.Base
	scale float64
}

// NewCustomScaleLayer makes a CustomScaleLayer. Options: WithName.
func NewCustomScaleLayer(scale float64, opts ...layers.Option) *CustomScaleLayer {
	return &CustomScaleLayer{Base: layers.NewBase("CustomScaleLayer", opts...), scale: scale}
}

// Scale returns the factor of the second input.
func (l *CustomScaleLayer) Scale() float64 { return l.scale }

// Call implements layers.Layer.
func (l *CustomScaleLayer) Call(in []ops.Tensor, _ bool) ops.Tensor {
	return ops.Add(in[0], ops.Scale(in[1], float32(l.scale)))
}

// CustomScaleLayerModule is the Keras module of CustomScaleLayer, as a
// saved config names it (the class is not in keras.layers).
const CustomScaleLayerModule = "keras.src.applications.inception_resnet_v2"

// Module is CustomScaleLayerModule: saving writes it as the class's
// module, so that Keras finds the class when it loads the file.
func (l *CustomScaleLayer) Module() string { return CustomScaleLayerModule }

// Importing the package registers CustomScaleLayer with keras.LoadModel,
// so that Keras' saved Inception-ResNet models (and gokeras' saves of
// the Go-built ones) load.
func init() {
	keras.RegisterLayer("CustomScaleLayer", func(cfg map[string]any) (layers.Layer, error) {
		scale, ok := cfg["scale"].(float64)
		if !ok || math.IsNaN(scale) || math.IsInf(scale, 0) {
			return nil, fmt.Errorf("applications: CustomScaleLayer: scale %v is not a finite number", cfg["scale"])
		}
		var opts []layers.Option
		if name, ok := cfg["name"].(string); ok && name != "" {
			opts = append(opts, layers.WithName(name))
		}
		if tr, ok := cfg["trainable"].(bool); ok {
			opts = append(opts, layers.WithTrainable(tr))
		}
		return NewCustomScaleLayer(scale, opts...), nil
	})
}

// GetConfig implements layers.Layer: the base keys and scale.
func (l *CustomScaleLayer) GetConfig() map[string]any {
	m := l.Base.GetConfig()
	m["scale"] = l.scale
	return m
}
