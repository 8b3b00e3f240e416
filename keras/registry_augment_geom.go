package keras

import "github.com/gokeras/gokeras/keras/layers"

// The geometric and mixing augmentation layers of issue 31:
// RandomErasing, RandomGaussianBlur, RandomShear, RandomPerspective,
// MixUp, CutMix and RandAugment, read from the configs Keras 3.15.1's get_config
// writes.

// geomLayers lists the classes registered here (their round trip is
// tested in registry_augment_geom_test.go).
var geomLayers []string

// builtinGeom registers a layer of package layers as builtin does,
// listing it in geomLayers. gokeras' layers transform images (and, for
// the mixing ones, labels), not bounding boxes: bounding_box_format is
// refused.
func builtinGeom(class string, f func(c *cfgReader, common []layers.Option) layers.Layer) {
	geomLayers = append(geomLayers, class)
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

// geomFactor reads a factor of the classes whose bounds are [0, 1]: a
// number f in [0, 1] is Keras' (0, f), a pair is passed on (the layer
// checks it); nil when the key is absent (the layer's default).
func (c *cfgReader) geomFactor(key string) *[2]float64 {
	if !c.present(key) {
		return nil
	}
	if _, ok := c.m[key].([]any); !ok {
		f := c.float(key, 0)
		if !(f >= 0 && f <= 1) {
			c.fail("%s: a number must be in [0, 1], got %v", key, f)
		}
		return &[2]float64{0, f}
	}
	v, err := flattenFloats(c.m[key])
	if err != nil || len(v) != 2 {
		c.fail("%s: want a number or two, got %s", key, compactJSON(c.m[key]))
		return nil
	}
	return &[2]float64{v[0], v[1]}
}

// shearFactor reads RandomShear's x_factor or y_factor: a number f is
// (-f, f), a pair is passed on; absent is 0.
func (c *cfgReader) shearFactor(key string) [2]float64 {
	if !c.present(key) {
		return [2]float64{}
	}
	if _, ok := c.m[key].([]any); !ok {
		f := c.float(key, 0)
		if !(f >= 0 && f <= 1) {
			c.fail("%s: a number must be in [0, 1], got %v", key, f)
		}
		return [2]float64{-f, f}
	}
	return c.factorRange(key)
}

func init() {
	builtin := builtinGeom
	builtin("RandomErasing", func(c *cfgReader, o []layers.Option) layers.Layer {
		s := layers.RandomErasingSettings{Factor: c.geomFactor("factor"), Scale: c.geomFactor("scale"), ValueRange: c.valueRange()}
		switch v := c.m["fill_value"].(type) {
		case nil:
		case []any:
			f, err := flattenFloats(v)
			if err != nil || len(f) != 3 {
				c.fail("fill_value: want a number, three numbers or null, got %s", compactJSON(v))
			} else {
				s.FillRGB = &[3]float64{f[0], f[1], f[2]}
			}
		default:
			f := c.float("fill_value", 0)
			s.FillValue = &f
		}
		return layers.NewRandomErasing(s, c.seedOption(o)...)
	})
	builtin("RandomGaussianBlur", func(c *cfgReader, o []layers.Option) layers.Layer {
		s := layers.RandomGaussianBlurSettings{Factor: c.geomFactor("factor"), Sigma: c.geomFactor("sigma"), ValueRange: c.valueRange()}
		if c.present("kernel_size") {
			if _, ok := c.m["kernel_size"].([]any); ok {
				if k := c.ints("kernel_size"); len(k) == 2 {
					s.KernelSize = [2]int{k[0], k[1]}
				} else {
					c.fail("kernel_size: want an odd number or two, got %s", compactJSON(c.m["kernel_size"]))
				}
			} else {
				k := c.int("kernel_size", 3)
				s.KernelSize = [2]int{k, k}
			}
			if s.KernelSize == [2]int{} {
				s.KernelSize = [2]int{-1, -1} // 0 is not odd: the layer refuses it
			}
		}
		return layers.NewRandomGaussianBlur(s, c.seedOption(o)...)
	})
	builtin("RandomShear", func(c *cfgReader, o []layers.Option) layers.Layer {
		s := layers.RandomShearSettings{XFactor: c.shearFactor("x_factor"), YFactor: c.shearFactor("y_factor"),
			FillMode: c.str("fill_mode", "reflect"), FillValue: c.float("fill_value", 0), Interpolation: c.str("interpolation", "bilinear")}
		return layers.NewRandomShear(s, c.seedOption(o)...)
	})
	builtin("RandomPerspective", func(c *cfgReader, o []layers.Option) layers.Layer {
		s := layers.RandomPerspectiveSettings{Factor: c.geomFactor("factor"), FillValue: c.float("fill_value", 0),
			Interpolation: c.str("interpolation", "bilinear")}
		if c.present("scale") {
			v := c.float("scale", 1)
			s.Scale = &v
		}
		return layers.NewRandomPerspective(s, c.seedOption(o)...)
	})
	builtin("MixUp", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.MixUpSettings
		if c.present("alpha") {
			v := c.float("alpha", 0.2)
			s.Alpha = &v
		}
		return layers.NewMixUp(s, c.seedOption(o)...)
	})
	builtin("RandAugment", func(c *cfgReader, o []layers.Option) layers.Layer {
		s := layers.RandAugmentSettings{ValueRange: c.valueRange(), Factor: c.geomFactor("factor"), Interpolation: c.str("interpolation", "bilinear")}
		if c.present("num_ops") {
			if s.NumOps = c.int("num_ops", 2); s.NumOps == 0 {
				s.NumOps = -1 // Keras' 0 applies nothing; the layer refuses it
			}
		}
		return layers.NewRandAugment(s, c.seedOption(o)...)
	})
	builtin("CutMix", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewCutMix(layers.CutMixSettings{Factor: c.geomFactor("factor")}, c.seedOption(o)...)
	})
}
