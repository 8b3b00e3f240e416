package keras

import "github.com/gokeras/gokeras/keras/layers"

// The classes of issue 31: the merge layers Average, Subtract, Maximum,
// Minimum and Dot; the noise layers; GroupNormalization, RMSNormalization
// and UnitNormalization; the 1-D and 3-D padding, cropping and upsampling
// layers; and of its optional list, GlobalAveragePooling3D,
// GlobalMaxPooling3D, RandomBrightness, DepthwiseConv1D, SeparableConv1D,
// Conv1DTranspose, Conv3D, MaxPooling3D and AveragePooling3D; and
// ActivityRegularization.

// moreLayers lists the classes registered here (their round trip is
// tested in registry_more_layers_test.go).
var moreLayers []string

// builtinMore registers a layer of package layers as builtin does,
// listing it in moreLayers.
func builtinMore(class string, f func(c *cfgReader, common []layers.Option) layers.Layer) {
	moreLayers = append(moreLayers, class)
	RegisterLayer(class, func(cfg map[string]any) (layers.Layer, error) {
		c := &cfgReader{m: cfg}
		l := f(c, c.common())
		if c.err != nil {
			return nil, c.err
		}
		return l, nil
	})
}

// axisOptions reads axis=, one integer or a list.
func (c *cfgReader) axisOptions() []layers.Option {
	switch c.m["axis"].(type) {
	case nil:
		return nil
	case []any:
		return []layers.Option{layers.WithAxes(c.ints("axis")...)}
	}
	return []layers.Option{layers.WithAxis(c.int("axis", -1))}
}

// pairs reads a padding or cropping argument of n spatial axes: one
// integer for every side, n integers (symmetric per axis), or n (before,
// after) pairs; a 1-D layer's is one pair or one integer. def is used when
// the key is absent.
func (c *cfgReader) pairs(key string, n, def int) [][2]int {
	p := make([][2]int, n)
	for i := range p {
		p[i] = [2]int{def, def}
	}
	v := c.m[key]
	if v == nil {
		return p
	}
	if k, ok := toInt(v); ok {
		for i := range p {
			p[i] = [2]int{k, k}
		}
		return p
	}
	list, ok := v.([]any)
	if n == 1 && ok && len(list) == 2 { // (before, after)
		if a, ok1 := toInt(list[0]); ok1 {
			if b, ok2 := toInt(list[1]); ok2 {
				p[0] = [2]int{a, b}
				return p
			}
		}
	}
	if !ok || len(list) != n {
		c.fail("%s %v: want an integer, %d integers or %d (before, after) pairs", key, v, n, n)
		return p
	}
	for i, x := range list {
		if k, ok := toInt(x); ok {
			p[i] = [2]int{k, k}
			continue
		}
		pair, err := toInts(x)
		if err != nil || len(pair) != 2 {
			c.fail("%s %v: want an integer, %d integers or %d (before, after) pairs", key, v, n, n)
			return p
		}
		p[i] = [2]int{pair[0], pair[1]}
	}
	return p
}

// seedOption reads seed=.
func (c *cfgReader) seedOption(o []layers.Option) []layers.Option {
	if c.present("seed") {
		o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
	}
	return o
}

func init() {
	builtin := builtinMore
	builtin("Average", func(c *cfgReader, o []layers.Option) layers.Layer { return layers.NewAverage(o...) })
	builtin("Subtract", func(c *cfgReader, o []layers.Option) layers.Layer { return layers.NewSubtract(o...) })
	builtin("Maximum", func(c *cfgReader, o []layers.Option) layers.Layer { return layers.NewMaximum(o...) })
	builtin("Minimum", func(c *cfgReader, o []layers.Option) layers.Layer { return layers.NewMinimum(o...) })
	builtin("Dot", func(c *cfgReader, o []layers.Option) layers.Layer {
		axes := c.ints("axes")
		if axes == nil {
			c.fail("axes is missing")
		}
		if c.present("normalize") {
			o = append(o, layers.WithNormalize(c.bool("normalize", false)))
		}
		return layers.NewDot(axes, o...)
	})
	builtin("GaussianNoise", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGaussianNoise(c.float("stddev", 0), c.seedOption(o)...)
	})
	builtin("GaussianDropout", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGaussianDropout(c.float("rate", 0), c.seedOption(o)...)
	})
	builtin("AlphaDropout", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("noise_shape") {
			o = append(o, layers.WithNoiseShape(c.noneInts("noise_shape")...))
		}
		return layers.NewAlphaDropout(c.float("rate", 0), c.seedOption(o)...)
	})
	builtin("SpatialDropout1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewSpatialDropout1D(c.float("rate", 0), c.seedOption(o)...)
	})
	builtin("SpatialDropout2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewSpatialDropout2D(c.float("rate", 0), c.seedOption(o)...)
	})
	builtin("SpatialDropout3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewSpatialDropout3D(c.float("rate", 0), c.seedOption(o)...)
	})
	builtin("GroupNormalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("axis") {
			o = append(o, layers.WithAxis(c.int("axis", -1)))
		}
		if c.present("epsilon") {
			o = append(o, layers.WithEpsilon(c.float("epsilon", 1e-3)))
		}
		if c.present("center") {
			o = append(o, layers.WithCenter(c.bool("center", true)))
		}
		if c.present("scale") {
			o = append(o, layers.WithScale(c.bool("scale", true)))
		}
		if i := c.initializer("gamma_initializer", "Ones"); i != nil {
			o = append(o, layers.WithGammaInitializer(i))
		}
		if i := c.initializer("beta_initializer", "Zeros"); i != nil {
			o = append(o, layers.WithBetaInitializer(i))
		}
		o = append(o, c.weightOptions("gamma_regularizer", "beta_regularizer", "gamma_constraint", "beta_constraint")...)
		return layers.NewGroupNormalization(c.int("groups", 32), o...)
	})
	builtin("RMSNormalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.axisOptions()...)
		if c.present("epsilon") {
			o = append(o, layers.WithEpsilon(c.float("epsilon", 1e-6)))
		}
		return layers.NewRMSNormalization(o...)
	})
	builtin("UnitNormalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewUnitNormalization(append(o, c.axisOptions()...)...)
	})
	builtin("ZeroPadding1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		p := c.pairs("padding", 1, 1)
		return layers.NewZeroPadding1D(p[0][0], p[0][1], o...)
	})
	builtin("ZeroPadding3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		p := c.pairs("padding", 3, 1)
		return layers.NewZeroPadding3D([3][2]int{p[0], p[1], p[2]}, o...)
	})
	builtin("Cropping1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		p := c.pairs("cropping", 1, 1)
		return layers.NewCropping1D(p[0][0], p[0][1], o...)
	})
	builtin("Cropping3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		p := c.pairs("cropping", 3, 1)
		return layers.NewCropping3D([3][2]int{p[0], p[1], p[2]}, o...)
	})
	builtin("UpSampling1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewUpSampling1D(c.int("size", 2), o...)
	})
	builtin("UpSampling3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		size := []int{2, 2, 2}
		if s := c.ints("size"); s != nil {
			size = s
		}
		if len(size) == 1 {
			size = []int{size[0], size[0], size[0]}
		}
		if len(size) != 3 {
			c.fail("size %v: want (depth, height, width)", size)
			size = []int{1, 1, 1}
		}
		return layers.NewUpSampling3D(size[0], size[1], size[2], o...)
	})
	keepDims := func(c *cfgReader, o []layers.Option) []layers.Option {
		if c.present("keepdims") {
			o = append(o, layers.WithKeepDims(c.bool("keepdims", false)))
		}
		return o
	}
	builtin("GlobalAveragePooling3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGlobalAveragePooling3D(keepDims(c, o)...)
	})
	builtin("GlobalMaxPooling3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGlobalMaxPooling3D(keepDims(c, o)...)
	})
	builtin("ActivityRegularization", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewActivityRegularization(c.float("l1", 0), c.float("l2", 0), o...)
	})
	builtin("RandomBrightness", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomBrightnessSettings
		if f, ok := c.m["factor"].([]any); ok {
			v, err := flattenFloats(f)
			if err != nil || len(v) != 2 {
				c.fail("factor: want a number or two, got %v", c.m["factor"])
			} else {
				s.Range = &[2]float64{v[0], v[1]}
			}
		} else {
			s.Factor = c.float("factor", 0)
		}
		if c.present("value_range") {
			v, err := flattenFloats(c.m["value_range"])
			if err != nil || len(v) != 2 {
				c.fail("value_range: want two numbers, got %v", c.m["value_range"])
			} else {
				s.ValueRange = &[2]float64{v[0], v[1]}
			}
		}
		return layers.NewRandomBrightness(s, c.seedOption(o)...)
	})
	depthwise := func(c *cfgReader, o []layers.Option) ([]layers.Option, int) {
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
		if i := c.initializer("bias_initializer", "Zeros"); i != nil {
			o = append(o, layers.WithBiasInitializer(i))
		}
		if r := c.regularizer("depthwise_regularizer"); r != nil {
			o = append(o, layers.WithDepthwiseRegularizer(r))
		}
		if r := c.regularizer("bias_regularizer"); r != nil {
			o = append(o, layers.WithBiasRegularizer(r))
		}
		return append(o, c.weightOptions("depthwise_constraint", "bias_constraint")...), k
	}
	builtin("DepthwiseConv1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		o, k := depthwise(c, o)
		return layers.NewDepthwiseConv1D(k, o...)
	})
	builtin("SeparableConv1D", func(c *cfgReader, o []layers.Option) layers.Layer {
		o, k := depthwise(c, o)
		if i := c.initializer("pointwise_initializer", "GlorotUniform"); i != nil {
			o = append(o, layers.WithPointwiseInitializer(i))
		}
		if r := c.regularizer("pointwise_regularizer"); r != nil {
			o = append(o, layers.WithPointwiseRegularizer(r))
		}
		o = append(o, c.weightOptions("pointwise_constraint")...)
		return layers.NewSeparableConv1D(c.int("filters", 0), k, o...)
	})
	builtin("Conv1DTranspose", func(c *cfgReader, o []layers.Option) layers.Layer {
		o, k := c.convWindow(o)
		if p := c.ints("output_padding"); p != nil {
			o = append(o, layers.WithOutputPadding(p...))
		}
		return layers.NewConv1DTranspose(c.int("filters", 0), k, append(o, c.kernelOptions()...)...)
	})
	builtin("Conv3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		if g := c.int("groups", 1); g != 1 {
			c.fail("groups = %d is not supported", g)
		}
		o, k := c.convWindow(o)
		return layers.NewConv3D(c.int("filters", 0), k, append(o, c.kernelOptions()...)...)
	})
	pooling3D := func(c *cfgReader, o []layers.Option) []layers.Option {
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
	builtin("MaxPooling3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewMaxPooling3D(pooling3D(c, o)...)
	})
	builtin("AveragePooling3D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewAveragePooling3D(pooling3D(c, o)...)
	})
	builtin("EinsumDense", func(c *cfgReader, o []layers.Option) layers.Layer {
		var shape []int
		switch v := c.m["output_shape"].(type) {
		case nil:
			c.fail("output_shape is missing")
		case []any:
			for _, d := range v {
				if d == nil {
					shape = append(shape, -1)
					continue
				}
				n, ok := toInt(d)
				if !ok {
					c.fail("output_shape %v: want integers or None", v)
				}
				shape = append(shape, n)
			}
		default:
			n, ok := toInt(v)
			if !ok {
				c.fail("output_shape %v: want an integer or a list", v)
			}
			shape = []int{n}
		}
		if c.present("bias_axes") {
			o = append(o, layers.WithBiasAxes(c.str("bias_axes", "")))
		}
		c.unsupported("quantization_config", "gptq_unpacked_column_size")
		return layers.NewEinsumDense(c.str("equation", ""), shape, append(o, c.kernelOptions()...)...)
	})
}
