package keras

import "github.com/gokeras/gokeras/keras/layers"

// Config readers and registrations of issue 30's layers: Dropout's
// noise_shape, Conv's groups, LayerScale.

// noneInts reads a list of integers and Nones (Dropout's noise_shape,
// (None, 1, 1, 1)), None as layers.None.
func (c *cfgReader) noneInts(key string) []int {
	list, ok := c.m[key].([]any)
	if !ok {
		c.fail("%s: want a list of integers and None, got %s", key, compactJSON(c.m[key]))
		return nil
	}
	out := make([]int, len(list))
	for i, v := range list {
		if v == nil {
			out[i] = layers.None
			continue
		}
		n, ok := toInt(v)
		if !ok || n < 1 || n > 1<<31 {
			c.fail("%s: %s: want sizes > 0 or None", key, compactJSON(c.m[key]))
			return nil
		}
		out[i] = n
	}
	return out
}

func init() {
	builtin("LayerScale", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewLayerScale(c.float("init_values", 0), c.int("projection_dim", 0), o...)
	})
}

// factorRange reads a Keras factor of the augmentation layers: a number f
// (the range (-f, f)) or a (lower, upper) pair.
func (c *cfgReader) factorRange(key string) [2]float64 {
	v, err := flattenFloats(c.m[key])
	switch {
	case err != nil || len(v) > 2:
		c.fail("%s: want a number or two, got %s", key, compactJSON(c.m[key]))
	case len(v) == 1:
		f := max(v[0], -v[0])
		return [2]float64{-f, f}
	case len(v) == 2:
		return [2]float64{v[0], v[1]}
	}
	return [2]float64{}
}
