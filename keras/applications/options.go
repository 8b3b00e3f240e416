package applications

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
)

// Option sets a keyword argument of a constructor, named after Keras'
// keyword (include_top is WithIncludeTop). An option a constructor does
// not take (WithAlpha for ResNet50) makes it fail with an error naming
// the constructor and the option, as Python fails on an unexpected
// keyword.
type Option func(*config)

// config holds every keyword argument of the constructors; each reads
// the ones it declares.
type config struct {
	set map[string]bool

	includeTop           bool
	weights              string
	inputTensor          *layers.KerasTensor
	inputShape           []int
	pooling              string
	classes              int
	classifierActivation string
	name                 string

	alpha                float64
	depthMultiplier      int
	dropout              float64
	minimalistic         bool
	includePreprocessing bool
	dropoutRate          float64
	dropConnectRate      float64
	layerScaleInitValue  float64
	stochasticDepth      float64
}

func (c *config) mark(key string) { c.set[key] = true }

// WithIncludeTop sets whether the model ends with its classifier
// (Keras' include_top; default true).
func WithIncludeTop(b bool) Option {
	return func(c *config) { c.includeTop = b; c.mark("include_top") }
}

// WithWeights sets the weights the model starts with (Keras' weights):
// "imagenet" (the default) loads the file Keras would download for the
// architecture from Keras' cache ($KERAS_HOME/models, else
// ~/.keras/models), downloading it there as Keras does when it is
// missing (utils.GetFile, with Keras' MD5 digest); "" (Python's None)
// keeps the initializers' random weights; any other value is the path of
// a weights file (.weights.h5, a legacy .h5, .keras), loaded with
// keras.Model.LoadWeights.
func WithWeights(w string) Option { return func(c *config) { c.weights = w; c.mark("weights") } }

// WithInputTensor builds the model on an existing symbolic input (Keras'
// input_tensor), which must come from layers.Input.
func WithInputTensor(t *layers.KerasTensor) Option {
	return func(c *config) { c.inputTensor = t; c.mark("input_tensor") }
}

// WithInputShape sets the input's shape without the batch (Keras'
// input_shape): height, width, channels, where height and width may be
// layers.None when the model has no top. Default: the architecture's
// image size with the top, (None, None, 3) without.
func WithInputShape(dims ...int) Option {
	return func(c *config) { c.inputShape = slices.Clone(dims); c.mark("input_shape") }
}

// WithPooling sets the pooling after the last convolution when the model
// has no top (Keras' pooling): "" (none: the output is the 4-D feature
// map), "avg" or "max".
func WithPooling(p string) Option { return func(c *config) { c.pooling = p; c.mark("pooling") } }

// WithClasses sets the number of classes of the top (Keras' classes;
// default 1000, which ImageNet weights with a top require).
func WithClasses(n int) Option { return func(c *config) { c.classes = n; c.mark("classes") } }

// WithClassifierActivation sets the top's activation (Keras'
// classifier_activation; default "softmax", "" for the logits).
func WithClassifierActivation(a string) Option {
	return func(c *config) { c.classifierActivation = a; c.mark("classifier_activation") }
}

// WithName sets the model's name (Keras' name; default the
// architecture's, "resnet50").
func WithName(n string) Option { return func(c *config) { c.name = n; c.mark("name") } }

// WithAlpha sets the width multiplier of the MobileNets (Keras' alpha;
// default 1).
func WithAlpha(a float64) Option { return func(c *config) { c.alpha = a; c.mark("alpha") } }

// WithDepthMultiplier sets MobileNet's depthwise depth multiplier
// (Keras' depth_multiplier; default 1).
func WithDepthMultiplier(m int) Option {
	return func(c *config) { c.depthMultiplier = m; c.mark("depth_multiplier") }
}

// WithDropout sets the dropout rate before MobileNet's top (Keras'
// dropout; default 0.001).
func WithDropout(r float64) Option { return func(c *config) { c.dropout = r; c.mark("dropout") } }

// WithMinimalistic selects MobileNetV3's minimalistic variant (no
// squeeze-excite, no hard-swish, 3x3 kernels; Keras' minimalistic).
func WithMinimalistic(b bool) Option {
	return func(c *config) { c.minimalistic = b; c.mark("minimalistic") }
}

// WithIncludePreprocessing sets whether the model starts with its own
// input scaling (MobileNetV3, EfficientNetV2, ConvNeXt: Keras'
// include_preprocessing; default true).
func WithIncludePreprocessing(b bool) Option {
	return func(c *config) { c.includePreprocessing = b; c.mark("include_preprocessing") }
}

// WithDropoutRate sets MobileNetV3's dropout before its last layer
// (Keras' dropout_rate; default 0.2).
func WithDropoutRate(r float64) Option {
	return func(c *config) { c.dropoutRate = r; c.mark("dropout_rate") }
}

// common keys every constructor takes.
var commonKeys = []string{"include_top", "weights", "input_tensor", "input_shape", "pooling", "classes",
	"classifier_activation", "name"}

// newConfig applies opts over Keras' defaults and refuses the options the
// constructor does not take.
func newConfig(ctor, name string, extra []string, opts []Option) (*config, error) {
	c := &config{set: map[string]bool{}, includeTop: true, weights: "imagenet", classes: 1000,
		classifierActivation: "softmax", name: name, alpha: 1, depthMultiplier: 1, dropout: 1e-3,
		includePreprocessing: true, dropoutRate: 0.2}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	var bad []string
	for k := range c.set {
		if !slices.Contains(commonKeys, k) && !slices.Contains(extra, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return c, fmt.Errorf("applications: %s does not take option(s) %s", ctor, strings.Join(bad, ", "))
	}
	if c.pooling != "" && c.pooling != "avg" && c.pooling != "max" {
		return c, fmt.Errorf("applications: %s: pooling must be \"\", \"avg\" or \"max\", got %q", ctor, c.pooling)
	}
	if c.classes <= 0 {
		return c, fmt.Errorf("applications: %s: classes must be positive, got %d", ctor, c.classes)
	}
	if c.weights == "imagenet" && c.includeTop && c.classes != 1000 {
		return c, fmt.Errorf("applications: %s: with weights \"imagenet\" and the top, classes must be 1000, got %d", ctor, c.classes)
	}
	if c.weights == "imagenet" && c.includeTop && c.classifierActivation != "softmax" && c.classifierActivation != "" {
		return c, fmt.Errorf("applications: %s: with weights \"imagenet\" the classifier activation must be \"softmax\" or \"\" (logits), got %q", ctor, c.classifierActivation)
	}
	return c, nil
}
