package keras

import (
	"fmt"

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
