package layers

import (
	"fmt"
	"slices"
	"strings"
)

// Option sets a keyword argument of a layer, named after Keras' keyword.
// Options a layer does not take make its construction fail with an error
// naming the layer and the option.
type Option func(*config)

// config holds every keyword argument a layer may take; each layer reads the
// ones it declares.
type config struct {
	set map[string]bool

	name        string
	inputShape  []int
	activation  string
	useBias     bool
	kernelInit  Initializer
	biasInit    Initializer
	kernelReg   Regularizer
	biasReg     Regularizer
	padding     string
	strides     []int
	dilation    []int
	poolSize    []int
	trainable   bool
	seed        int64
	hasSeed     bool
	scale       float64
	offset      float64
	axis        int
	alpha       float64
	maxValue    float64
	threshold   float64
	noiseShape  []int
	dataFormat  string
	kernelSize  []int
	targetShape []int

	// BatchNormalization
	momentum     float64
	epsilon      float64
	center       bool
	scaleOn      bool
	synchronized bool

	more moreConfig // options_more.go
	rnn  rnnConfig  // rnn_options.go
	act  actConfig  // activation_options.go

	conv convMoreConfig // options_conv_more.go

	input inputConfig // options_input.go

	attn attentionConfig // attention_options.go

	ml moreLayersConfig // options_more_layers.go, options_constraints.go

	gqa groupedQueryConfig // grouped_query_attention_options.go
}

func (c *config) mark(key string) { c.set[key] = true }

// WithName sets the layer's name (Keras' name=). Default: the class name in
// snake case with a counter, "conv2d", "conv2d_1", ...
func WithName(name string) Option { return func(c *config) { c.name = name; c.mark("name") } }

// WithInputShape declares the input shape without the batch dimension
// (Keras' input_shape=), so a Sequential model can build at once.
func WithInputShape(dims ...int) Option {
	return func(c *config) { c.inputShape = append([]int(nil), dims...); c.mark("input_shape") }
}

// WithActivation sets the activation by Keras name: "relu", "sigmoid",
// "tanh", "softmax", "linear" (or "").
func WithActivation(name string) Option {
	return func(c *config) { c.activation = name; c.mark("activation") }
}

// WithUseBias sets whether the layer adds a bias (default true).
func WithUseBias(b bool) Option { return func(c *config) { c.useBias = b; c.mark("use_bias") } }

// WithKernelInitializer sets the kernel initializer (default glorot_uniform).
func WithKernelInitializer(i Initializer) Option {
	return func(c *config) { c.kernelInit = i; c.mark("kernel_initializer") }
}

// WithBiasInitializer sets the bias initializer (default zeros).
func WithBiasInitializer(i Initializer) Option {
	return func(c *config) { c.biasInit = i; c.mark("bias_initializer") }
}

// WithKernelRegularizer adds a penalty on the kernel to the model's loss.
func WithKernelRegularizer(r Regularizer) Option {
	return func(c *config) { c.kernelReg = r; c.mark("kernel_regularizer") }
}

// WithBiasRegularizer adds a penalty on the bias to the model's loss.
func WithBiasRegularizer(r Regularizer) Option {
	return func(c *config) { c.biasReg = r; c.mark("bias_regularizer") }
}

// WithPadding sets "valid" (default) or "same".
func WithPadding(p string) Option { return func(c *config) { c.padding = p; c.mark("padding") } }

// WithStrides sets the strides: one value for every spatial dimension, or one each.
func WithStrides(s ...int) Option {
	return func(c *config) { c.strides = append([]int(nil), s...); c.mark("strides") }
}

// WithDilationRate sets the dilation: one value for all dimensions, or one each.
func WithDilationRate(d ...int) Option {
	return func(c *config) { c.dilation = append([]int(nil), d...); c.mark("dilation_rate") }
}

// WithKernelSize sets a convolution's kernel height and width (one value: square).
func WithKernelSize(hw ...int) Option {
	return func(c *config) { c.kernelSize = append([]int(nil), hw...); c.mark("kernel_size") }
}

// WithPoolSize sets the pooling window (default 2x2).
func WithPoolSize(p ...int) Option {
	return func(c *config) { c.poolSize = append([]int(nil), p...); c.mark("pool_size") }
}

// WithTrainable sets whether the layer's weights are trainable (default true).
func WithTrainable(t bool) Option { return func(c *config) { c.trainable = t; c.mark("trainable") } }

// WithSeed seeds the layer's randomness (dropout masks).
func WithSeed(s int64) Option {
	return func(c *config) { c.seed = s; c.hasSeed = true; c.mark("seed") }
}

// WithOffset sets Rescaling's offset (default 0).
func WithOffset(o float64) Option { return func(c *config) { c.offset = o; c.mark("offset") } }

// WithAxis sets the axis a layer works along (Softmax: default -1).
func WithAxis(a int) Option { return func(c *config) { c.axis = a; c.mark("axis") } }

// WithMaxValue caps ReLU's output (default: no cap).
func WithMaxValue(v float64) Option { return func(c *config) { c.maxValue = v; c.mark("max_value") } }

// WithNegativeSlope sets ReLU's slope below the threshold (default 0).
func WithNegativeSlope(a float64) Option {
	return func(c *config) { c.alpha = a; c.mark("negative_slope") }
}

// WithThreshold sets ReLU's threshold (default 0).
func WithThreshold(t float64) Option { return func(c *config) { c.threshold = t; c.mark("threshold") } }

// WithDataFormat accepts "channels_last" only: gokeras is NHWC like Keras' default.
func WithDataFormat(f string) Option {
	return func(c *config) { c.dataFormat = f; c.mark("data_format") }
}

// common keys every layer takes.
var commonKeys = []string{"name", "input_shape", "trainable", "data_format", "dtype", "activity_regularizer"}

func newConfig(class string, allowed []string, opts []Option) (*config, error) {
	c := &config{set: map[string]bool{}, useBias: true, trainable: true, padding: "valid", maxValue: -1}
	for _, o := range opts {
		o(c)
	}
	allowed = withAllowedWeightOptions(class, allowed) // options_constraints.go
	var bad []string
	for k := range c.set {
		if !slices.Contains(allowed, k) && !slices.Contains(commonKeys, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return c, fmt.Errorf("layers: %s does not take option(s) %s", class, strings.Join(bad, ", "))
	}
	if c.set["data_format"] && c.dataFormat != "channels_last" {
		return c, fmt.Errorf("layers: %s: data_format %q is not supported; gokeras is channels_last (NHWC)", class, c.dataFormat)
	}
	if c.set["padding"] && c.padding != "valid" && c.padding != "same" {
		return c, fmt.Errorf("layers: %s: padding must be \"valid\" or \"same\", got %q", class, c.padding)
	}
	return c, nil
}

// pair expands Keras' int-or-tuple arguments for 2-D layers. The values
// must be positive, as Keras checks at construction.
func pair(what string, v []int, def int) ([2]int, error) {
	var p [2]int
	switch len(v) {
	case 0:
		return [2]int{def, def}, nil
	case 1:
		p = [2]int{v[0], v[0]}
	case 2:
		p = [2]int{v[0], v[1]}
	default:
		return [2]int{}, fmt.Errorf("%s takes 1 or 2 values, got %v", what, v)
	}
	if p[0] <= 0 || p[1] <= 0 {
		return p, fmt.Errorf("%s must be positive, got %v", what, v)
	}
	return p, nil
}
