package onnx

import "fmt"

func init() {
	for class, op := range map[string]string{"Add": "Add", "Subtract": "Sub", "Multiply": "Mul", "Average": "Add", "Maximum": "Max", "Minimum": "Min"} {
		converters[class] = mergeConverter(op)
	}
	converters["Concatenate"] = convertConcatenate
}

// mergeConverter folds the inputs left to right with op, the order
// gokeras and Keras add them in (so float32 sums round alike); Average
// divides the sum by the count. The inputs are brought to one layout
// first (see converter.same).
func mergeConverter(op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		class := k.layer.ClassName()
		if class == "Subtract" && len(k.in) != 2 {
			return nil, fmt.Errorf("takes 2 inputs, got %d", len(k.in))
		}
		names, nchw, err := c.same(k.in)
		if err != nil {
			return nil, err
		}
		y := names[0]
		for _, n := range names[1:] {
			y = c.op(op, []string{y, n}, "")
		}
		if class == "Average" && len(names) > 1 {
			y = c.op("Div", []string{y, c.scalar("count", float64(len(names)))}, "")
		}
		if len(names) == 1 {
			y = c.op("Identity", []string{y}, "")
		}
		return c.finish(y, nchw, k), nil
	}
}

func convertConcatenate(c *converter, k *call) (*val, error) {
	a, err := cfgInt(k.cfg, "axis", -1)
	if err != nil {
		return nil, err
	}
	for _, v := range k.in[1:] {
		if len(v.shape) != len(k.in[0].shape) {
			return nil, fmt.Errorf("inputs of ranks %d and %d", len(k.in[0].shape), len(v.shape))
		}
	}
	names, nchw, err := c.same(k.in)
	if err != nil {
		return nil, err
	}
	ax, err := axis(a, len(k.in[0].shape), nchw)
	if err != nil {
		return nil, err
	}
	if ax == 0 {
		return nil, unsupported("concatenation along the batch axis")
	}
	return c.finish(c.op("Concat", names, "", attrInt("axis", ax)), nchw, k), nil
}
