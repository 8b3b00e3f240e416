package keras

import "github.com/gokeras/gokeras/keras/layers"

// The activation layers' entries in the layer registry, read from Keras 3's
// config keys.
func init() {
	builtin("LeakyReLU", func(c *cfgReader, o []layers.Option) layers.Layer {
		switch {
		case c.present("negative_slope"):
			o = append(o, layers.WithNegativeSlope(c.float("negative_slope", 0.3)))
		case c.present("alpha"): // Keras 2's name for it
			o = append(o, layers.WithNegativeSlope(c.float("alpha", 0.3)))
		}
		return layers.NewLeakyReLU(o...)
	})
	builtin("ELU", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("alpha") {
			o = append(o, layers.WithAlpha(c.float("alpha", 1)))
		}
		return layers.NewELU(o...)
	})
	builtin("PReLU", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.weightOptions("alpha_constraint")...) // registry_more_layers_constraints.go
		if i := c.initializer("alpha_initializer", "Zeros"); i != nil {
			o = append(o, layers.WithAlphaInitializer(i))
		}
		if r := c.regularizer("alpha_regularizer"); r != nil {
			o = append(o, layers.WithAlphaRegularizer(r))
		}
		if c.present("shared_axes") {
			o = append(o, layers.WithSharedAxes(c.ints("shared_axes")...))
		}
		return layers.NewPReLU(o...)
	})
}
