package keras

import (
	"fmt"
	"maps"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
)

// The preprocessing layers' entries in the layer registry, read from Keras
// 3's config keys.
func init() {
	builtin("Normalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.NormalizationSettings
		switch a := c.m["axis"].(type) {
		case nil:
			s.AxisNone = true
		case []any:
			if len(a) == 0 {
				s.AxisNone = true
			} else {
				s.Axis = c.ints("axis")
			}
		default:
			s.Axis = []int{c.int("axis", -1)}
		}
		s.Invert = c.bool("invert", false)
		if c.present("mean") || c.present("variance") {
			var err error
			if s.Mean, err = flattenFloats(c.m["mean"]); err != nil {
				c.fail("mean: %v", err)
			}
			if s.Variance, err = flattenFloats(c.m["variance"]); err != nil {
				c.fail("variance: %v", err)
			}
		}
		return layers.NewNormalization(s, o...)
	})
	builtin("Resizing", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("pad_to_aspect_ratio", false) {
			c.fail("pad_to_aspect_ratio = true is not supported")
		}
		if c.bool("antialias", false) {
			c.fail("antialias = true is not supported")
		}
		return layers.NewResizing(c.int("height", 0), c.int("width", 0), layers.ResizingSettings{
			Interpolation: c.str("interpolation", "bilinear"), CropToAspectRatio: c.bool("crop_to_aspect_ratio", false)}, o...)
	})
	builtin("CenterCrop", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewCenterCrop(c.int("height", 0), c.int("width", 0), o...)
	})
	builtin("IntegerLookup", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("sparse", false) {
			c.fail("sparse = true is not supported (gokeras has dense tensors only)")
		}
		if c.bool("invert", false) {
			c.fail("invert = true is not supported")
		}
		if m := c.str("oov_method", "floormod"); m != "floormod" {
			c.fail("oov_method %q is not supported", m)
		}
		if d := c.str("vocabulary_dtype", "int64"); d != "int64" && d != "int32" {
			c.fail("vocabulary_dtype %q is not supported", d)
		}
		s := layers.IntegerLookupSettings{MaxTokens: c.int("max_tokens", 0), NumOOVIndices: c.int("num_oov_indices", 1),
			OutputMode: c.str("output_mode", "int"), PadToMaxTokens: c.bool("pad_to_max_tokens", false)}
		if s.NumOOVIndices == 0 {
			c.fail("num_oov_indices = 0 is not supported (Keras raises at run time on an unknown token)")
		}
		if c.present("mask_token") {
			t := int64(c.int("mask_token", 0))
			s.MaskToken = &t
		}
		if c.present("oov_token") {
			t := int64(c.int("oov_token", -1))
			s.OOVToken = &t
		}
		if c.present("vocabulary") {
			if _, ok := c.m["vocabulary"].(string); ok {
				c.fail("vocabulary as a file path is not supported")
			}
			for _, v := range c.ints("vocabulary") {
				s.Vocabulary = append(s.Vocabulary, int64(v))
			}
			if s.Vocabulary == nil {
				s.Vocabulary = []int64{}
			}
		}
		if c.present("idf_weights") {
			var err error
			if s.IDFWeights, err = flattenFloats(c.m["idf_weights"]); err != nil {
				c.fail("idf_weights: %v", err)
			}
		}
		return layers.NewIntegerLookup(s, o...)
	})
	builtinIntOutput("Hashing", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("sparse", false) {
			c.fail("sparse = true is not supported (gokeras has dense tensors only)")
		}
		s := layers.HashingSettings{OutputMode: c.str("output_mode", "int")}
		if c.present("mask_value") {
			if _, ok := c.m["mask_value"].(string); ok {
				c.fail("mask_value %q: gokeras hashes integers only", c.m["mask_value"])
			}
			v := int64(c.int("mask_value", 0))
			s.MaskValue = &v
		}
		if c.present("salt") {
			var k []int
			if _, ok := c.m["salt"].([]any); ok {
				k = c.ints("salt")
			} else {
				k = []int{c.int("salt", 0), c.int("salt", 0)}
			}
			if len(k) != 2 {
				c.fail("salt: want one integer or two, got %v", c.m["salt"])
			} else {
				s.Salt = &[2]uint64{uint64(k[0]), uint64(k[1])}
			}
		}
		return layers.NewHashing(c.int("num_bins", 0), s, o...)
	})
	builtin("RandomContrast", func(c *cfgReader, o []layers.Option) layers.Layer {
		var s layers.RandomContrastSettings
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
		if c.present("seed") {
			o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
		}
		return layers.NewRandomContrast(s, o...)
	})
	builtin("RandomZoom", func(c *cfgReader, o []layers.Option) layers.Layer {
		pair := func(key string) *[2]float64 {
			if !c.present(key) {
				return nil
			}
			v, err := flattenFloats(c.m[key])
			switch {
			case err != nil || len(v) > 2:
				c.fail("%s: want a number or two, got %v", key, c.m[key])
				return nil
			case len(v) == 1: // Keras: f means (-|f|, |f|)
				f := max(v[0], -v[0])
				return &[2]float64{-f, f}
			}
			return &[2]float64{v[0], v[1]}
		}
		var h [2]float64
		if p := pair("height_factor"); p != nil {
			h = *p
		}
		s := layers.RandomZoomSettings{Width: pair("width_factor"), FillMode: c.str("fill_mode", "reflect"),
			FillValue: c.float("fill_value", 0), Interpolation: c.str("interpolation", "bilinear")}
		if c.present("seed") {
			o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
		}
		return layers.NewRandomZoom(h, s, o...)
	})
	builtin("RandomRotation", func(c *cfgReader, o []layers.Option) layers.Layer {
		v, err := flattenFloats(c.m["factor"])
		var f [2]float64
		switch {
		case err != nil || len(v) > 2:
			c.fail("factor: want a number or two, got %v", c.m["factor"])
		case len(v) == 1: // Keras: f means (-|f|, |f|)
			a := max(v[0], -v[0])
			f = [2]float64{-a, a}
		default:
			f = [2]float64{v[0], v[1]}
		}
		s := layers.RandomRotationSettings{FillMode: c.str("fill_mode", "reflect"),
			FillValue: c.float("fill_value", 0), Interpolation: c.str("interpolation", "bilinear")}
		if c.present("seed") {
			o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
		}
		return layers.NewRandomRotation(f, s, o...)
	})
	builtin("CategoryEncoding", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("sparse", false) {
			c.fail("sparse = true is not supported (gokeras has dense tensors only)")
		}
		return layers.NewCategoryEncoding(layers.CategoryEncodingSettings{
			NumTokens: c.int("num_tokens", 0), OutputMode: c.str("output_mode", "multi_hot")}, o...)
	})
	builtin("Discretization", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("sparse", false) {
			c.fail("sparse = true is not supported (gokeras has dense tensors only)")
		}
		s := layers.DiscretizationSettings{NumBins: c.int("num_bins", 0), Epsilon: c.float("epsilon", 0.01),
			OutputMode: c.str("output_mode", "int")}
		if c.present("bin_boundaries") {
			var err error
			if s.BinBoundaries, err = flattenFloats(c.m["bin_boundaries"]); err != nil {
				if l, ok := c.m["bin_boundaries"].([]any); !ok || len(l) != 0 {
					c.fail("bin_boundaries: %v", err)
				}
				s.BinBoundaries = []float64{}
			}
		}
		return layers.NewDiscretization(s, o...)
	})
}

// builtinIntOutput registers a layer whose Keras output may be integers:
// Keras then writes an integer dtype ("int64" in Hashing's config), which
// is no float policy; gokeras carries the integers in float32, so such a
// dtype is dropped before the config is read.
func builtinIntOutput(class string, f func(c *cfgReader, common []layers.Option) layers.Layer) {
	builtin(class, f)
	layerRegistry.RLock()
	inner := layerRegistry.m[class]
	layerRegistry.RUnlock()
	RegisterLayer(class, func(cfg map[string]any) (layers.Layer, error) {
		if isIntDtype(cfg["dtype"]) {
			cfg = maps.Clone(cfg)
			delete(cfg, "dtype")
		}
		return inner(cfg)
	})
}

// isIntDtype reports whether a config's dtype (a name or Keras 3's
// DTypePolicy dict) names an integer type.
func isIntDtype(v any) bool {
	if m, ok := v.(map[string]any); ok {
		c, _ := m["config"].(map[string]any)
		v = c["name"]
	}
	s, _ := v.(string)
	return strings.HasPrefix(s, "int") || strings.HasPrefix(s, "uint")
}

// flattenFloats reads a number or a (nested) list of numbers, row-major.
func flattenFloats(v any) ([]float64, error) {
	var out []float64
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		if depth > 32 {
			return fmt.Errorf("nested too deep")
		}
		if l, ok := v.([]any); ok {
			for _, e := range l {
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		f, ok := toFloat(v)
		if !ok {
			return fmt.Errorf("want numbers, got %v", v)
		}
		out = append(out, f)
		return nil
	}
	if err := walk(v, 0); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return out, nil
}
