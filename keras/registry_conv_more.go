package keras

import "github.com/gokeras/gokeras/keras/layers"

// The conv and shape layers of issue 17: Conv1D, Conv2DTranspose,
// SeparableConv2D, UpSampling2D, Cropping2D, the 1-D poolings, Permute,
// Identity; Lambda is registered to fail with a clear error.

// convWindow reads kernel_size, strides, dilation_rate and padding; it
// returns the first kernel size for the constructor.
func (c *cfgReader) convWindow(o []layers.Option) ([]layers.Option, int) {
	ks := c.ints("kernel_size")
	if len(ks) == 0 {
		c.fail("kernel_size is missing")
		ks = []int{1}
	}
	o = append(o, layers.WithKernelSize(ks...))
	if s := c.ints("strides"); s != nil {
		o = append(o, layers.WithStrides(s...))
	}
	if d := c.ints("dilation_rate"); d != nil {
		o = append(o, layers.WithDilationRate(d...))
	}
	if c.present("padding") {
		o = append(o, layers.WithPadding(c.str("padding", "valid")))
	}
	return o, ks[0]
}

// cropPairs reads Keras' ((top, bottom), (left, right)) argument, also
// given as one int or (symmetric_height, symmetric_width); def is used
// when the key is absent.
func (c *cfgReader) cropPairs(key string, def int) [4]int {
	p := [4]int{def, def, def, def}
	switch v := c.m[key].(type) {
	case nil:
	case []any:
		if len(v) != 2 {
			c.fail("%s %v: want ((top, bottom), (left, right))", key, v)
			break
		}
		for i, x := range v {
			if n, ok := toInt(x); ok {
				p[2*i], p[2*i+1] = n, n
				continue
			}
			pair, err := toInts(x)
			if err != nil || len(pair) != 2 {
				c.fail("%s %v: want ((top, bottom), (left, right))", key, v)
				break
			}
			p[2*i], p[2*i+1] = pair[0], pair[1]
		}
	default:
		n, ok := toInt(v)
		if !ok {
			c.fail("%s %v: want an integer or pairs", key, v)
		}
		p = [4]int{n, n, n, n}
	}
	return p
}

// convMoreLayers lists the classes registered here (their round trip is
// tested in registry_conv_more_test.go).
var convMoreLayers []string

// builtinConvMore registers a layer of package layers as builtin does,
// listing it in convMoreLayers.
func builtinConvMore(class string, f func(c *cfgReader, common []layers.Option) layers.Layer) {
	convMoreLayers = append(convMoreLayers, class)
	RegisterLayer(class, func(cfg map[string]any) (layers.Layer, error) {
		c := &cfgReader{m: cfg}
		l := f(c, c.common())
		if c.err != nil {
			return nil, c.err
		}
		return l, nil
	})
}

func init() {
	builtin := builtinConvMore
	builtin("Conv1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("groups") {
			o = append(o, layers.WithGroups(c.int("groups", 1)))
		}
		o, k := c.convWindow(o)
		return layers.NewConv1D(c.int("filters", 0), k, append(o, c.kernelOptions()...)...)
	})
	builtin("Conv2DTranspose", func(c *cfgReader, o []layers.Option) layers.Layer {
		o, k := c.convWindow(o)
		if p := c.ints("output_padding"); p != nil {
			o = append(o, layers.WithOutputPadding(p...))
		}
		return layers.NewConv2DTranspose(c.int("filters", 0), k, append(o, c.kernelOptions()...)...)
	})
	builtin("SeparableConv2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		o, k := c.convWindow(o)
		if c.present("depth_multiplier") {
			o = append(o, layers.WithDepthMultiplier(c.int("depth_multiplier", 1)))
		}
		o = append(o, c.activation()...)
		if c.present("use_bias") {
			o = append(o, layers.WithUseBias(c.bool("use_bias", true)))
		}
		if i := c.initializer("depthwise_initializer", "GlorotUniform"); i != nil {
			o = append(o, layers.WithDepthwiseInitializer(i))
		}
		if i := c.initializer("pointwise_initializer", "GlorotUniform"); i != nil {
			o = append(o, layers.WithPointwiseInitializer(i))
		}
		if i := c.initializer("bias_initializer", "Zeros"); i != nil {
			o = append(o, layers.WithBiasInitializer(i))
		}
		if r := c.regularizer("depthwise_regularizer"); r != nil {
			o = append(o, layers.WithDepthwiseRegularizer(r))
		}
		if r := c.regularizer("pointwise_regularizer"); r != nil {
			o = append(o, layers.WithPointwiseRegularizer(r))
		}
		if r := c.regularizer("bias_regularizer"); r != nil {
			o = append(o, layers.WithBiasRegularizer(r))
		}
		o = append(o, c.weightOptions("depthwise_constraint", "pointwise_constraint", "bias_constraint")...)
		return layers.NewSeparableConv2D(c.int("filters", 0), k, o...)
	})
	builtin("UpSampling2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		size := []int{2, 2}
		if s := c.ints("size"); s != nil {
			size = s
		}
		if len(size) == 1 {
			size = []int{size[0], size[0]}
		}
		if len(size) != 2 {
			c.fail("size %v: want (height, width)", size)
			size = []int{1, 1}
		}
		if c.present("interpolation") {
			o = append(o, layers.WithInterpolation(c.str("interpolation", "nearest")))
		}
		return layers.NewUpSampling2D(size[0], size[1], o...)
	})
	builtin("Cropping2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		p := c.cropPairs("cropping", 0)
		return layers.NewCropping2D(p[0], p[1], p[2], p[3], o...)
	})
	pooling1D := func(c *cfgReader, o []layers.Option) []layers.Option {
		if p := c.ints("pool_size"); p != nil {
			o = append(o, layers.WithPoolSize(p...))
		}
		if s := c.ints("strides"); s != nil {
			o = append(o, layers.WithStrides(s...))
		}
		if c.present("padding") {
			o = append(o, layers.WithPadding(c.str("padding", "valid")))
		}
		return o
	}
	builtin("MaxPooling1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewMaxPooling1D(pooling1D(c, o)...)
	})
	builtin("AveragePooling1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewAveragePooling1D(pooling1D(c, o)...)
	})
	keepDims := func(c *cfgReader, o []layers.Option) []layers.Option {
		if c.present("keepdims") {
			o = append(o, layers.WithKeepDims(c.bool("keepdims", false)))
		}
		return o
	}
	builtin("GlobalAveragePooling1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGlobalAveragePooling1D(keepDims(c, o)...)
	})
	builtin("GlobalMaxPooling1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGlobalMaxPooling1D(keepDims(c, o)...)
	})
	builtin("Permute", func(c *cfgReader, o []layers.Option) layers.Layer {
		dims := c.ints("dims")
		if dims == nil {
			c.fail("dims is missing")
		}
		return layers.NewPermute(dims, o...)
	})
	builtin("Identity", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewIdentity(o...)
	})
	builtin("Lambda", func(c *cfgReader, o []layers.Option) layers.Layer {
		c.fail("a Lambda layer's function is Python code, which gokeras cannot run (Keras too loads it only with safe_mode=False): " +
			"write the layer in Go and register it with keras.RegisterLayer under the class name Lambda, or under a class of its own")
		return nil
	})
}
