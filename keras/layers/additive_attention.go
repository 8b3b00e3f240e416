package layers

// AdditiveAttention is keras.layers.AdditiveAttention, Bahdanau-style
// attention: the scores are sum(scale * tanh(q + k)) over the feature axis,
// scale a learned vector of dim values (use_scale, the default) or 1;
// masks, the softmax over Tv and the weighted sum of the values are those
// of [Attention]. In Python and in Go:
//
//	y = keras.layers.AdditiveAttention()([query, value])
//
//	y := layers.Apply(layers.NewAdditiveAttention(), query, value)
type AdditiveAttention struct {
	Attention
}

// NewAdditiveAttention makes an AdditiveAttention layer. Options:
// WithUseScale (default true), WithAttentionDropout, WithSeed, WithName.
func NewAdditiveAttention(opts ...Option) *AdditiveAttention {
	l := &AdditiveAttention{}
	l.init("AdditiveAttention", []string{"use_scale", "dropout", "seed"}, opts)
	if !l.cfg.set["use_scale"] {
		l.cfg.attn.useScale = true
	}
	l.additive = true
	l.setup("dot")
	return l
}
