package layers

// moreConfig holds the keyword arguments of the layers of
// global_pooling2d.go, depthwise_conv2d.go, embedding.go and the image
// augmentation layers (random_*.go).
type moreConfig struct {
	keepDims        bool
	depthMultiplier int
	depthwiseInit   Initializer
	depthwiseReg    Regularizer
	embeddingsInit  Initializer
	embeddingsReg   Regularizer
	fillMode        string
	fillValue       float64
}

// WithKeepDims makes global pooling keep the spatial dimensions as size 1
// (Keras' keepdims=; default false).
func WithKeepDims(b bool) Option {
	return func(c *config) { c.more.keepDims = b; c.mark("keepdims") }
}

// WithDepthMultiplier sets how many output channels DepthwiseConv2D makes
// per input channel (default 1).
func WithDepthMultiplier(m int) Option {
	return func(c *config) { c.more.depthMultiplier = m; c.mark("depth_multiplier") }
}

// WithDepthwiseInitializer sets DepthwiseConv2D's kernel initializer
// (default glorot_uniform).
func WithDepthwiseInitializer(i Initializer) Option {
	return func(c *config) { c.more.depthwiseInit = i; c.mark("depthwise_initializer") }
}

// WithDepthwiseRegularizer adds a penalty on DepthwiseConv2D's kernel to
// the model's loss.
func WithDepthwiseRegularizer(r Regularizer) Option {
	return func(c *config) { c.more.depthwiseReg = r; c.mark("depthwise_regularizer") }
}

// WithEmbeddingsInitializer sets Embedding's table initializer (default
// random_uniform in [-0.05, 0.05]).
func WithEmbeddingsInitializer(i Initializer) Option {
	return func(c *config) { c.more.embeddingsInit = i; c.mark("embeddings_initializer") }
}

// WithEmbeddingsRegularizer adds a penalty on Embedding's table to the
// model's loss.
func WithEmbeddingsRegularizer(r Regularizer) Option {
	return func(c *config) { c.more.embeddingsReg = r; c.mark("embeddings_regularizer") }
}

// WithFillMode sets how RandomTranslation fills the pixels shifted in from
// outside the image: "reflect" (default), "wrap", "nearest" or "constant".
func WithFillMode(m string) Option {
	return func(c *config) { c.more.fillMode = m; c.mark("fill_mode") }
}

// WithFillValue sets the value of the "constant" fill mode (default 0).
func WithFillValue(v float64) Option {
	return func(c *config) { c.more.fillValue = v; c.mark("fill_value") }
}
