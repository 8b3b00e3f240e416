package onnx

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func init() {
	converters["TimeDistributed"] = convertTimeDistributed
}

// convertTimeDistributed writes the wrapped layer on every step as
// gokeras does, by folding the steps into the batch: the input (batch,
// steps, ...) reshaped to (batch*steps, ...) in Keras' layout, the inner
// layer's converter on that, its output reshaped back to (batch, steps,
// ...). The batch stays symbolic (Reshape's -1); the steps must be known,
// as gokeras' layer requires. The output carries the input's mask. An
// inner layer the exporter does not write is refused by its class.
func convertTimeDistributed(c *converter, k *call) (*val, error) {
	td, ok := k.layer.(*layers.TimeDistributed)
	if !ok || td.Layer == nil {
		return nil, unsupported("a TimeDistributed layer of type %T", k.layer)
	}
	if len(k.in) != 1 {
		return nil, fmt.Errorf("takes one input, got %d", len(k.in))
	}
	x := k.in[0]
	if len(x.shape) < 3 || x.shape[1] < 1 || len(k.out) < 2 {
		return nil, fmt.Errorf("needs a (batch, steps, ...) input of known steps, got %v", x.shape)
	}
	inner := td.Layer
	fn, ok := converters[inner.ClassName()]
	if _, isOp := inner.(*layers.Operation); isOp || !ok || inner.ClassName() == "MaskAttach" {
		return nil, unsupported("TimeDistributed of a %s layer %q (the exporter writes %s)", inner.ClassName(), inner.Name(), "the classes of SupportedClasses")
	}
	c.float(x)
	flat := []int64{-1}
	for _, d := range x.shape[2:] {
		flat = append(flat, int64(d))
	}
	xf := c.op("Reshape", []string{c.kerasOrder(x), c.constInt64s("fold", []int{len(flat)}, flat)}, "")
	in := &val{name: xf, shape: append(ops.Shape{-1}, x.shape[2:]...), dtype: typeFloat}
	ic := &call{layer: inner, name: k.name + "/" + inner.Name(), cfg: inner.GetConfig(), in: []*val{in}, out: append(ops.Shape{-1}, k.out[2:]...)}
	scope := c.scope
	c.scope = sanitize(ic.name)
	y, err := fn(c, ic)
	c.scope = scope
	if err != nil {
		return nil, fmt.Errorf("the wrapped layer %q (%s): %w", inner.Name(), inner.ClassName(), err)
	}
	y.shape = ic.out
	back := []int64{-1, int64(x.shape[1])}
	for _, d := range k.out[2:] {
		if d < 0 {
			return nil, unsupported("an inner output of unknown size %v", k.out)
		}
		back = append(back, int64(d))
	}
	res := c.finish(c.op("Reshape", []string{c.kerasOrder(y), c.constInt64s("unfold", []int{len(back)}, back)}, ""), false, k)
	res.mask = x.mask
	return res, nil
}
