package layers

// convMoreConfig holds the keyword arguments of Conv2DTranspose,
// SeparableConv2D, UpSampling2D and the 1-D pooling layers.
type convMoreConfig struct {
	outputPadding []int
	pointwiseInit Initializer
	pointwiseReg  Regularizer
	interpolation string
	groups        int // Conv1D's and Conv2D's (grouped_conv.go)
}

// WithOutputPadding sets Conv2DTranspose's output_padding: one value for
// both dimensions or one each, each below the stride. Default: None, the
// output size Keras derives from the padding.
func WithOutputPadding(p ...int) Option {
	return func(c *config) { c.conv.outputPadding = append([]int(nil), p...); c.mark("output_padding") }
}

// WithPointwiseInitializer sets SeparableConv2D's 1x1 kernel initializer
// (default glorot_uniform).
func WithPointwiseInitializer(i Initializer) Option {
	return func(c *config) { c.conv.pointwiseInit = i; c.mark("pointwise_initializer") }
}

// WithPointwiseRegularizer adds a penalty on SeparableConv2D's 1x1 kernel to
// the model's loss.
func WithPointwiseRegularizer(r Regularizer) Option {
	return func(c *config) { c.conv.pointwiseReg = r; c.mark("pointwise_regularizer") }
}

// WithInterpolation sets UpSampling2D's interpolation: "nearest" (default)
// or "bilinear".
func WithInterpolation(m string) Option {
	return func(c *config) { c.conv.interpolation = m; c.mark("interpolation") }
}
