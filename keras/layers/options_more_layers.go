package layers

// moreLayersConfig holds the keyword arguments of the layers of issue 31:
// the merge layers Dot, the noise layers, the normalizations GroupNormalization,
// RMSNormalization and UnitNormalization, and the weight constraints and
// extra regularizers that options_constraints.go attaches to weights.
type moreLayersConfig struct {
	normalize bool
	axes      []int
	// constraints and regs map a weight's name (in AddWeight) to what the
	// options attach to it; keys records the Keras key that set each.
	constraints map[string]Constraint
	regs        map[string]Regularizer
	activity    Regularizer
	gammaInit   Initializer
	betaInit    Initializer
	biasAxes    string
}

// WithNormalize makes Dot L2-normalize both inputs along the dot axes
// first, so that it computes the cosine similarity (Keras' normalize=;
// default false).
func WithNormalize(b bool) Option {
	return func(c *config) { c.ml.normalize = b; c.mark("normalize") }
}

// WithAxes sets the axes a layer works along: UnitNormalization's and
// RMSNormalization's axis= given as several axes (one axis: [WithAxis]).
func WithAxes(axes ...int) Option {
	return func(c *config) { c.ml.axes = append([]int(nil), axes...); c.mark("axis") }
}

// WithGammaInitializer sets GroupNormalization's scale initializer
// (default ones).
func WithGammaInitializer(i Initializer) Option {
	return func(c *config) { c.ml.gammaInit = i; c.mark("gamma_initializer") }
}

// WithBetaInitializer sets GroupNormalization's offset initializer
// (default zeros).
func WithBetaInitializer(i Initializer) Option {
	return func(c *config) { c.ml.betaInit = i; c.mark("beta_initializer") }
}

// WithBiasAxes sets the output axes EinsumDense adds a bias along, as
// letters of its equation's output (Keras' bias_axes=; default "": no
// bias).
func WithBiasAxes(axes string) Option {
	return func(c *config) { c.ml.biasAxes = axes; c.mark("bias_axes") }
}
