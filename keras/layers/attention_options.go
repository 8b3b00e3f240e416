package layers

import "github.com/gokeras/gokeras/ops"

// attentionConfig holds the keyword arguments of the attention layers
// (MultiHeadAttention, Attention, AdditiveAttention).
type attentionConfig struct {
	valueDim    int
	dropout     float64
	outputShape []int
	axes        []int
	useScale    bool
	scoreMode   string
}

// WithValueDim sets MultiHeadAttention's size of each attention head for
// the value (Keras' value_dim; default key_dim).
func WithValueDim(n int) Option {
	return func(c *config) { c.attn.valueDim = n; c.mark("value_dim") }
}

// WithAttentionDropout sets the dropout rate of the attention layers'
// attention probabilities in training (Keras' dropout=; default 0).
func WithAttentionDropout(rate float64) Option {
	return func(c *config) { c.attn.dropout = rate; c.mark("dropout") }
}

// WithOutputShape sets MultiHeadAttention's output projection's shape
// without the batch and query axes (Keras' output_shape; default the
// query's last dimension).
func WithOutputShape(dims ...int) Option {
	return func(c *config) { c.attn.outputShape = append([]int(nil), dims...); c.mark("output_shape") }
}

// WithAttentionAxes sets the axes MultiHeadAttention attends over (Keras'
// attention_axes; default every axis between the batch and the features).
func WithAttentionAxes(axes ...int) Option {
	return func(c *config) { c.attn.axes = append([]int(nil), axes...); c.mark("attention_axes") }
}

// WithUseScale sets whether Attention (default false) or
// AdditiveAttention (default true) learns a scale of its scores.
func WithUseScale(b bool) Option {
	return func(c *config) { c.attn.useScale = b; c.mark("use_scale") }
}

// WithScoreMode sets Attention's scores: "dot" (default, the query-key
// dot product) or "concat" (the sum of tanh(query + key)).
func WithScoreMode(m string) Option {
	return func(c *config) { c.attn.scoreMode = m; c.mark("score_mode") }
}

// AttentionArgs are the call arguments of the attention layers beyond the
// query and the value, Keras' call keywords. The zero value is Keras'
// default call: key = value, no attention mask, no causal mask, inference.
type AttentionArgs struct {
	// Key is the key tensor; the none tensor means the value.
	Key ops.Tensor
	// AttentionMask (MultiHeadAttention only) is Keras' attention_mask:
	// 1 where a query position may attend to a key position, 0 where
	// not, of shape (batch, Tq, Tv) for rank-3 inputs; the none tensor
	// means no mask. It combines with the Keras masks of the inputs
	// ([Mask]) and the causal mask.
	AttentionMask ops.Tensor
	// UseCausalMask is Keras' use_causal_mask: position i attends to
	// positions j <= i only.
	UseCausalMask bool
	// Training applies the attention dropout.
	Training bool
}
