package keras

import "github.com/gokeras/gokeras/keras/layers"

// The colour and intensity augmentation layers of issue 31:
// RandomGrayscale, RandomHue, RandomSaturation, RandomColorDegeneration,
// RandomColorJitter, RandomSharpness, RandomInvert, RandomPosterization,
// Solarization, AutoContrast and Equalization, read from the configs
// Keras 3.15.1's get_config writes.

// colorLayers lists the classes registered here (their round trip is
// tested in registry_augment_color_test.go).
var colorLayers []string

// builtinColor registers a layer of package layers as builtin does,
// listing it in colorLayers. Keras writes bounding_box_format only when
// it is set; gokeras' layers transform images alone and refuse it.
func builtinColor(class string, f func(c *cfgReader, common []layers.Option) layers.Layer) {
	colorLayers = append(colorLayers, class)
	RegisterLayer(class, func(cfg map[string]any) (layers.Layer, error) {
		c := &cfgReader{m: cfg}
		c.unsupported("bounding_box_format")
		l := f(c, c.common())
		if c.err != nil {
			return nil, c.err
		}
		return l, nil
	})
}

// colorFactor reads a Keras factor: a number (f) or a (lower, upper)
// pair (pair); neither when the key is absent.
func (c *cfgReader) colorFactor(key string) (f float64, pair *[2]float64) {
	if !c.present(key) {
		return 0, nil
	}
	if _, ok := c.m[key].([]any); !ok {
		return c.float(key, 0), nil
	}
	v, err := flattenFloats(c.m[key])
	if err != nil || len(v) != 2 {
		c.fail("%s: want a number or two, got %s", key, compactJSON(c.m[key]))
		return 0, nil
	}
	return 0, &[2]float64{v[0], v[1]}
}

// jitterFactor reads a factor of RandomColorJitter: null, a number or a
// pair, as the slice the layer takes.
func (c *cfgReader) jitterFactor(key string) []float64 {
	if !c.present(key) {
		return nil
	}
	f, pair := c.colorFactor(key)
	if pair != nil {
		return pair[:]
	}
	return []float64{f}
}

// valueRange reads value_range, nil when absent (the layers' default
// (0, 255)).
func (c *cfgReader) valueRange() *[2]float64 {
	if !c.present("value_range") {
		return nil
	}
	v, err := flattenFloats(c.m["value_range"])
	if err != nil || len(v) != 2 {
		c.fail("value_range: want two numbers, got %s", compactJSON(c.m["value_range"]))
		return nil
	}
	return &[2]float64{v[0], v[1]}
}

func init() {
	builtin := builtinColor
	builtin("RandomGrayscale", func(c *cfgReader, o []layers.Option) layers.Layer {
		if _, ok := c.m["factor"].([]any); ok {
			c.fail("factor: want a number, got %s", compactJSON(c.m["factor"]))
		}
		return layers.NewRandomGrayscale(c.float("factor", 0.5), c.seedOption(o)...)
	})
	builtin("RandomHue", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomHueSettings
		s.Factor, s.Range = c.colorFactor("factor")
		s.ValueRange = c.valueRange()
		return layers.NewRandomHue(s, c.seedOption(o)...)
	})
	builtin("RandomSaturation", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomSaturationSettings
		s.Factor, s.Range = c.colorFactor("factor")
		s.ValueRange = c.valueRange()
		return layers.NewRandomSaturation(s, c.seedOption(o)...)
	})
	builtin("RandomColorDegeneration", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomColorDegenerationSettings
		s.Factor, s.Range = c.colorFactor("factor")
		s.ValueRange = c.valueRange()
		return layers.NewRandomColorDegeneration(s, c.seedOption(o)...)
	})
	builtin("RandomColorJitter", func(c *cfgReader, o []layers.Option) layers.Layer {
		s := layers.RandomColorJitterSettings{ValueRange: c.valueRange(),
			BrightnessFactor: c.jitterFactor("brightness_factor"), ContrastFactor: c.jitterFactor("contrast_factor"),
			SaturationFactor: c.jitterFactor("saturation_factor"), HueFactor: c.jitterFactor("hue_factor")}
		return layers.NewRandomColorJitter(s, c.seedOption(o)...)
	})
	builtin("RandomSharpness", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomSharpnessSettings
		s.Factor, s.Range = c.colorFactor("factor")
		s.ValueRange = c.valueRange()
		return layers.NewRandomSharpness(s, c.seedOption(o)...)
	})
	builtin("RandomInvert", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomInvertSettings
		s.Factor, s.Range = c.colorFactor("factor")
		s.ZeroFactor = c.present("factor") && s.Range == nil && s.Factor == 0
		s.ValueRange = c.valueRange()
		return layers.NewRandomInvert(s, c.seedOption(o)...)
	})
	builtin("RandomPosterization", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomPosterizationSettings
		s.Factor, s.Range = c.colorFactor("factor")
		s.ValueRange = c.valueRange()
		return layers.NewRandomPosterization(s, c.seedOption(o)...)
	})
	builtin("Solarization", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.SolarizationSettings
		s.AdditionFactor, s.AdditionRange = c.colorFactor("addition_factor")
		s.ThresholdFactor, s.ThresholdRange = c.colorFactor("threshold_factor")
		s.ValueRange = c.valueRange()
		return layers.NewSolarization(s, c.seedOption(o)...)
	})
	builtin("AutoContrast", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewAutoContrast(c.valueRange(), o...)
	})
	builtin("Equalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		bins := c.int("bins", 256)
		if bins < 1 { // the Go settings read 0 as the default
			c.fail("bins: want a positive integer, got %v", c.m["bins"])
		}
		return layers.NewEqualization(layers.EqualizationSettings{ValueRange: c.valueRange(), Bins: bins}, o...)
	})
}
