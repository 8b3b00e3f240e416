package applications_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/applications"
	"github.com/gokeras/gokeras/keras/layers"
)

// A feature extractor: MobileNetV2 without its top, average-pooled, as
// keras.applications.MobileNetV2(weights=None, include_top=False,
// pooling="avg", input_shape=(96, 96, 3), alpha=0.35). With
// WithWeights("imagenet") (the default) the weights come from Keras'
// cache, ~/.keras/models.
func ExampleMobileNetV2() {
	layers.ClearSession()
	m, err := applications.MobileNetV2(applications.WithWeights(""), applications.WithIncludeTop(false),
		applications.WithPooling("avg"), applications.WithInputShape(96, 96, 3), applications.WithAlpha(0.35))
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Name(), len(m.Layers()), m.CountParams(), m.Outputs()[0].Shape())
	// Output: mobilenetv2_0.35_96 155 410208 (None, 1280)
}

// Extra inputs on top of a backbone: the constructor builds on the given
// Input (Keras' input_tensor).
func ExampleWithInputTensor() {
	layers.ClearSession()
	in := layers.Input([]int{64, 64, 3}, layers.WithName("image"))
	m, err := applications.ResNet50V2(applications.WithWeights(""), applications.WithIncludeTop(false),
		applications.WithInputTensor(in), applications.WithPooling("max"))
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Layers()[0].Name(), m.Outputs()[0].Shape())
	// Output: image (None, 2048)
}
