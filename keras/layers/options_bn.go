package layers

// WithMomentum sets BatchNormalization's momentum (default 0.99).
func WithMomentum(m float64) Option { return func(c *config) { c.momentum = m; c.mark("momentum") } }

// WithEpsilon sets the small constant added to variances (default 1e-3).
func WithEpsilon(e float64) Option { return func(c *config) { c.epsilon = e; c.mark("epsilon") } }

// WithCenter sets whether a normalisation layer adds the offset beta (default true).
func WithCenter(b bool) Option { return func(c *config) { c.center = b; c.mark("center") } }

// WithScale sets whether a normalisation layer multiplies by gamma (default true).
func WithScale(b bool) Option { return func(c *config) { c.scaleOn = b; c.mark("scale") } }

// WithSynchronized makes BatchNormalization use the global batch's
// statistics across replicas (default false).
func WithSynchronized(b bool) Option {
	return func(c *config) { c.synchronized = b; c.mark("synchronized") }
}
