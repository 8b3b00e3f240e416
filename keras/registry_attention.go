package keras

import (
	"github.com/gokeras/gokeras/keras/layers"
)

// The attention layers, rebuilt from Keras' configs: MultiHeadAttention,
// Attention and AdditiveAttention.
func init() {
	builtin("MultiHeadAttention", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.kernelOptions()...)
		if c.present("value_dim") {
			o = append(o, layers.WithValueDim(c.int("value_dim", 0)))
		}
		o = append(o, c.attentionOptions()...)
		if c.present("output_shape") {
			if s := c.ints("output_shape"); len(s) > 0 {
				o = append(o, layers.WithOutputShape(s...))
			}
		}
		if c.present("attention_axes") {
			if s := c.ints("attention_axes"); len(s) > 0 {
				o = append(o, layers.WithAttentionAxes(s...))
			}
		}
		if c.bool("use_gate", false) {
			c.fail("use_gate = true is not supported")
		}
		c.unsupported("sliding_window")
		if c.bool("flash_attention", false) {
			c.fail("flash_attention = true is not supported")
		}
		return layers.NewMultiHeadAttention(c.int("num_heads", 0), c.int("key_dim", 0), o...)
	})
	builtin("Attention", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.attentionOptions()...)
		if c.present("use_scale") {
			o = append(o, layers.WithUseScale(c.bool("use_scale", false)))
		}
		if c.present("score_mode") {
			o = append(o, layers.WithScoreMode(c.str("score_mode", "dot")))
		}
		return layers.NewAttention(o...)
	})
	builtin("AdditiveAttention", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.attentionOptions()...)
		if c.present("use_scale") {
			o = append(o, layers.WithUseScale(c.bool("use_scale", true)))
		}
		return layers.NewAdditiveAttention(o...)
	})
}

// attentionOptions reads the keys the attention layers share: dropout and
// seed.
func (c *cfgReader) attentionOptions() []layers.Option {
	var o []layers.Option
	if c.present("dropout") {
		o = append(o, layers.WithAttentionDropout(c.float("dropout", 0)))
	}
	if c.present("seed") {
		o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
	}
	return o
}
