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
