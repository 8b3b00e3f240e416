package layers

// groupedQueryConfig holds the keyword arguments of GroupedQueryAttention
// that no other layer takes.
type groupedQueryConfig struct {
	useGate       bool
	slidingWindow int
}

// WithUseGate sets whether GroupedQueryAttention gates its heads' output
// by a sigmoid of a projection of the query before the output projection
// (Keras' use_gate; default false).
func WithUseGate(b bool) Option {
	return func(c *config) { c.gqa.useGate = b; c.mark("use_gate") }
}

// WithSlidingWindow restricts GroupedQueryAttention's query position i to
// the key positions j with |i-j| < n (Keras' sliding_window; default
// none, every position). With the causal mask it is the causal sliding
// window of Mistral-style decoders.
func WithSlidingWindow(n int) Option {
	return func(c *config) { c.gqa.slidingWindow = n; c.mark("sliding_window") }
}
