package keras

import "github.com/gokeras/gokeras/keras/layers"

// GroupQueryAttention (Python class GroupedQueryAttention), rebuilt from
// Keras' config.
func init() {
	builtin("GroupQueryAttention", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.kernelOptions()...)
		o = append(o, c.attentionOptions()...)
		if c.present("use_gate") {
			o = append(o, layers.WithUseGate(c.bool("use_gate", false)))
		}
		if c.present("sliding_window") {
			o = append(o, layers.WithSlidingWindow(c.int("sliding_window", 0)))
		}
		if c.bool("flash_attention", false) {
			c.fail("flash_attention = true is not supported")
		}
		return layers.NewGroupQueryAttention(c.int("head_dim", 0), c.int("num_query_heads", 0),
			c.int("num_key_value_heads", 0), o...)
	})
}
