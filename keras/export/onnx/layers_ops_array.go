package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/gokeras/gokeras/keras/layers"
)

// The shape operations of keras.src.ops.numpy as operation nodes:
// reshape, transpose, expand_dims, squeeze, indexing (x[:, 1:5, ::2],
// x[:, 0], x[..., None, 2]), concatenate, stack and matmul, written in
// Keras' layout as gokeras computes them (keras/layers/op_shape.go).
// Their axes count the batch. gokeras' Operation refuses, at run time, an
// output that does not keep its input's batch first; the exporter, whose
// batch is symbolic, refuses the configs that would touch it (a
// transpose moving axis 0, an index or slice of the batch, a reshape
// whose first dimension is not the batch) by the layer's name.

func init() {
	opConverters["Reshape"] = convertReshapeOp
	opConverters["Transpose"] = convertTransposeOp
	opConverters["ExpandDims"] = convertExpandDimsOp
	opConverters["Squeeze"] = convertSqueezeOp
	opConverters["GetItem"] = convertGetItemOp
	opConverters["Concatenate"] = concatOp(false)
	opConverters["Stack"] = concatOp(true)
	opConverters["Matmul"] = convertMatmulOp
}

// opAxes reads an operation's axis argument: nil when None, else the
// axes normalized for rank r (each in [0, r)), none repeated.
func opAxes(k *call, key string, r int) ([]int, bool, error) {
	if k.cfg[key] == nil {
		return nil, false, nil
	}
	raw, err := cfgInts(k.cfg, key, 0, nil)
	if err != nil {
		return nil, false, err
	}
	out := make([]int, len(raw))
	for i, a := range raw {
		if out[i], err = axis(a, r, false); err != nil {
			return nil, false, err
		}
		if slices.Contains(out[:i], out[i]) {
			return nil, false, fmt.Errorf("%s %v repeats an axis", key, k.cfg[key])
		}
	}
	return out, true, nil
}

// kerasFloat is x's name in Keras' layout as float32.
func (c *converter) kerasFloat(x *val) string {
	c.float(x)
	return c.keras(x)
}

// convertReshapeOp: keras.ops.reshape, whose newshape counts the batch.
// The first dimension must be the batch (-1 or None); it is written as
// ONNX's 0 (the input's batch); the others are known (gokeras' Reshape
// infers one dimension only, here the batch), and a newshape moving
// elements across rows is refused where the input's sizes are known (and
// fails in onnxruntime, as in gokeras, where they are not).
func convertReshapeOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	ns, ok := k.cfg["newshape"].([]any)
	if !ok {
		ns = []any{k.cfg["newshape"]}
	}
	shape := make([]int64, len(ns))
	inferred := 0
	for i, d := range ns {
		n := -1
		if d != nil {
			f, ok := cfgNumber(d)
			if !ok || f != math.Trunc(f) || f < -1 || f == 0 || f > 1<<31 {
				return nil, fmt.Errorf("newshape %v: dimension %v", ns, d)
			}
			n = int(f)
		}
		if n == -1 {
			inferred++
		}
		shape[i] = int64(n)
	}
	if shape[0] != -1 {
		return nil, unsupported("newshape %v fixes the batch at %d (the exported batch is symbolic: give -1 first)", ns, shape[0])
	}
	if inferred > 1 {
		return nil, fmt.Errorf("newshape %v: only one dimension can be -1", ns)
	}
	// Every row keeps its elements: the known sizes must match.
	in, out := 1, 1
	for _, d := range x.shape[1:] {
		if d < 0 {
			in = -1
			break
		}
		in *= d
	}
	for _, d := range shape[1:] {
		out *= int(d)
	}
	if in >= 0 && in != out {
		return nil, unsupported("newshape %v of an input of shape %v moves elements across the batch", ns, x.shape)
	}
	shape[0] = 0
	c.float(x)
	s := c.constInt64s("shape", []int{len(shape)}, shape)
	return c.finish(c.op("Reshape", []string{c.kerasOrder(x), s}, ""), false, k), nil
}

// convertTransposeOp: keras.ops.transpose with its axes, which must keep
// the batch first (None, reversing every axis, moves it).
func convertTransposeOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	perm, given, err := opAxes(k, "axes", r)
	if err != nil {
		return nil, err
	}
	if !given {
		return nil, unsupported("transpose without axes reverses the batch axis")
	}
	if len(perm) != r {
		return nil, fmt.Errorf("axes %v do not match a tensor of shape %v", k.cfg["axes"], x.shape)
	}
	if perm[0] != 0 {
		return nil, unsupported("axes %v move the batch axis", k.cfg["axes"])
	}
	return c.finish(c.op("Transpose", []string{c.kerasFloat(x)}, "", attrInts("perm", perm...)), false, k), nil
}

// convertExpandDimsOp: keras.ops.expand_dims, an Unsqueeze at the new
// axes of the output's rank (not before the batch).
func convertExpandDimsOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	n := 1
	if l, ok := k.cfg["axis"].([]any); ok {
		n = len(l)
	}
	as, given, err := opAxes(k, "axis", len(x.shape)+n)
	if err != nil {
		return nil, err
	}
	if !given || len(as) == 0 {
		return nil, fmt.Errorf("axis %v: want an integer or a list of integers", k.cfg["axis"])
	}
	if slices.Contains(as, 0) {
		return nil, unsupported("axis %v puts a new axis before the batch", k.cfg["axis"])
	}
	slices.Sort(as)
	axes := c.constInt64s("axes", []int{len(as)}, int64s(as))
	return c.finish(c.op("Unsqueeze", []string{c.kerasFloat(x), axes}, ""), false, k), nil
}

// convertSqueezeOp: keras.ops.squeeze of the given axes (each of size
// 1), or, with axis None, as gokeras: every axis of size 1 but the batch.
func convertSqueezeOp(c *converter, k *call) (*val, error) {
	x, err := opInput(k)
	if err != nil {
		return nil, err
	}
	as, given, err := opAxes(k, "axis", len(x.shape))
	if err != nil {
		return nil, err
	}
	if given {
		for _, a := range as {
			switch {
			case a == 0:
				return nil, unsupported("squeeze of the batch axis")
			case x.shape[a] != 1:
				return nil, fmt.Errorf("axis %d of shape %v is not of size 1", a, x.shape)
			}
		}
	} else {
		for a := 1; a < len(x.shape); a++ {
			switch x.shape[a] {
			case -1:
				return nil, unsupported("squeeze without axis of a tensor of shape %v (axis %d is of unknown size)", x.shape, a)
			case 1:
				as = append(as, a)
			}
		}
	}
	xn := c.kerasFloat(x)
	if len(as) == 0 {
		return c.finish(c.op("Identity", []string{xn}, ""), false, k), nil
	}
	slices.Sort(as)
	axes := c.constInt64s("axes", []int{len(as)}, int64s(as))
	return c.finish(c.op("Squeeze", []string{xn, axes}, ""), false, k), nil
}

// convertGetItemOp: x[key] with numpy's basic indexing as gokeras' GetItem
// reads it (integers, slices, None, one Ellipsis; a list key is a tuple):
// one Slice over the axes the key narrows, then a Squeeze of the
// integer-indexed axes and an Unsqueeze of the new ones. The batch axis
// must be taken whole (":"); the others narrowed need a known size, the
// bounds resolved here as Python's slice.indices does.
func convertGetItemOp(c *converter, k *call) (*val, error) {
	args, err := opArgs(k)
	if err != nil {
		return nil, err
	}
	if len(args) != 2 {
		return nil, unsupported("%d arguments", len(args))
	}
	x, ok := args[0].(*val)
	if !ok {
		return nil, fmt.Errorf("indexes %v, not a tensor", args[0])
	}
	keys, ok := args[1].([]any)
	if !ok {
		keys = []any{args[1]}
	}
	xs := x.shape
	consuming, ellipses := 0, 0
	for _, key := range keys {
		switch key.(type) {
		case layers.OpEllipsis:
			ellipses++
		case nil:
		case layers.OpSlice:
			consuming++
		default:
			if _, ok := cfgNumber(key); !ok {
				return nil, unsupported("index %v (%T): integers, slices, None and ... only", key, key)
			}
			consuming++
		}
	}
	if ellipses > 1 || consuming > len(xs) {
		return nil, fmt.Errorf("key %v for a tensor of shape %v", keys, xs)
	}
	var full []any
	for _, key := range keys {
		if _, ok := key.(layers.OpEllipsis); ok {
			for range len(xs) - consuming {
				full = append(full, layers.OpSlice{})
			}
			continue
		}
		full = append(full, key)
	}
	if ellipses == 0 {
		for range len(xs) - consuming {
			full = append(full, layers.OpSlice{})
		}
	}
	var starts, ends, axes, steps []int64
	var squeeze, unsqueeze []int
	d, outPos, kept := 0, 0, 0
	for i, key := range full {
		switch s := key.(type) {
		case nil:
			if i == 0 {
				return nil, unsupported("key %v puts a new axis before the batch", keys)
			}
			unsqueeze = append(unsqueeze, outPos)
			outPos++
			continue
		case layers.OpSlice:
			whole := s.Start == nil && s.Stop == nil && (s.Step == nil || *s.Step == 1)
			if d == 0 {
				if !whole && !(s.Start != nil && *s.Start == 0 && s.Stop == nil && (s.Step == nil || *s.Step == 1)) {
					return nil, unsupported("key %v slices the batch axis", keys)
				}
			} else if !whole {
				if xs[d] < 0 {
					return nil, unsupported("key %v slices axis %d of unknown size (shape %v)", keys, d, xs)
				}
				b, n, st, err := s.Indices(xs[d]) // gokeras' own bounds
				if err != nil {
					return nil, fmt.Errorf("axis %d: %v", d, err)
				}
				if n == 0 {
					return nil, fmt.Errorf("axis %d of shape %v: the slice selects nothing (gokeras has no empty tensors)", d, xs)
				}
				last := int64(b + (n-1)*st)
				end := last + 1
				if st < 0 {
					end = last - 1
					if end < 0 {
						end = math.MinInt64 // past the first element: -1 would count from the end
					}
				}
				starts, ends, axes, steps = append(starts, int64(b)), append(ends, end), append(axes, int64(d)), append(steps, int64(st))
			}
			outPos++
			kept++
		default:
			f, _ := cfgNumber(key)
			i := int(f)
			if d == 0 {
				return nil, unsupported("key %v indexes the batch axis", keys)
			}
			if xs[d] < 0 {
				return nil, unsupported("key %v indexes axis %d of unknown size (shape %v)", keys, d, xs)
			}
			if f != math.Trunc(f) || i < -xs[d] || i >= xs[d] {
				return nil, fmt.Errorf("index %v is out of bounds for axis %d of shape %v", key, d, xs)
			}
			if i < 0 {
				i += xs[d]
			}
			starts, ends, axes, steps = append(starts, int64(i)), append(ends, int64(i+1)), append(axes, int64(d)), append(steps, 1)
			squeeze = append(squeeze, d)
		}
		d++
	}
	y := c.kerasFloat(x)
	if len(axes) > 0 {
		n := []int{len(axes)}
		y = c.op("Slice", []string{y, c.constInt64s("starts", n, starts), c.constInt64s("ends", n, ends),
			c.constInt64s("axes", n, axes), c.constInt64s("steps", n, steps)}, "")
	}
	if len(squeeze) > 0 {
		y = c.op("Squeeze", []string{y, c.constInt64s("squeeze_axes", []int{len(squeeze)}, int64s(squeeze))}, "")
	}
	if len(unsqueeze) > 0 {
		y = c.op("Unsqueeze", []string{y, c.constInt64s("unsqueeze_axes", []int{len(unsqueeze)}, int64s(unsqueeze))}, "")
	}
	if y == x.name || y == x.alt {
		y = c.op("Identity", []string{y}, "")
	}
	return c.finish(y, false, k), nil
}

// concatOp: keras.ops.concatenate (a Concat of the listed tensors in
// Keras' layout) or keras.ops.stack (each unsqueezed at the axis of the
// output's rank, then concatenated there), never along the batch.
func concatOp(stack bool) convertFn {
	return func(c *converter, k *call) (*val, error) {
		o, ok := k.layer.(*layers.Operation)
		if !ok {
			return nil, fmt.Errorf("internal: not an operation node")
		}
		args, kwargs := o.CallArguments()
		if len(kwargs) > 0 {
			return nil, unsupported("keyword arguments %v", kwargs)
		}
		if len(args) != 1 {
			return nil, unsupported("%d arguments", len(args))
		}
		list, ok := args[0].([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("takes a list of tensors, got %v", args[0])
		}
		var xs []*val
		for _, e := range list {
			t, ok := e.(layers.OpTensor)
			if !ok {
				return nil, unsupported("list entry %v (%T): tensors only", e, e)
			}
			if int(t) < 0 || int(t) >= len(k.in) {
				return nil, fmt.Errorf("list entry is input %d of %d", t, len(k.in))
			}
			xs = append(xs, k.in[t])
		}
		r := len(xs[0].shape)
		if stack {
			r++
		}
		a, err := cfgInt(k.cfg, "axis", 0)
		if err != nil {
			return nil, err
		}
		if a, err = axis(a, r, false); err != nil {
			return nil, err
		}
		if a == 0 {
			return nil, unsupported("along the batch axis")
		}
		names := make([]string, len(xs))
		for i, x := range xs {
			if len(x.shape) != len(xs[0].shape) {
				return nil, fmt.Errorf("tensors of shapes %v and %v", xs[0].shape, x.shape)
			}
			names[i] = c.kerasFloat(x)
			if stack {
				names[i] = c.op("Unsqueeze", []string{names[i], c.constInt64s("axes", []int{1}, []int64{int64(a)})}, "")
			}
		}
		if len(names) == 1 {
			return c.finish(c.op("Identity", names, ""), false, k), nil
		}
		return c.finish(c.op("Concat", names, "", attrInt("axis", a)), false, k), nil
	}
}

// convertMatmulOp: keras.ops.matmul in the cases gokeras multiplies that
// keep the batch: a tensor times a constant matrix or vector (its last
// axis against the constant's first), and two stacks of matrices of one
// rank (3 or more), batch by batch. ONNX's MatMul broadcasts as NumPy's.
func convertMatmulOp(c *converter, k *call) (*val, error) {
	args, err := opArgs(k)
	if err != nil {
		return nil, err
	}
	if len(args) != 2 {
		return nil, unsupported("%d arguments", len(args))
	}
	a, ok := args[0].(*val)
	if !ok {
		return nil, unsupported("a constant (%T) times a tensor", args[0])
	}
	r := len(a.shape)
	switch b := args[1].(type) {
	case *val:
		if r < 3 || len(b.shape) != r {
			return nil, unsupported("matmul of tensors of shapes %v and %v (the exporter writes stacks of matrices of one rank)", a.shape, b.shape)
		}
		return c.finish(c.op("MatMul", []string{c.kerasFloat(a), c.kerasFloat(b)}, ""), false, k), nil
	case layers.OpArray:
		if r < 2 || len(b.Shape) < 1 || len(b.Shape) > 2 {
			return nil, unsupported("matmul of a tensor of shape %v by a constant of shape %v (the exporter writes a constant matrix or vector on the right)", a.shape, b.Shape)
		}
		if in := a.shape[r-1]; in >= 0 && in != b.Shape[0] {
			return nil, fmt.Errorf("shapes %v and %v: inner dimensions differ", a.shape, b.Shape)
		}
		w, err := c.opArray(b, len(b.Shape), false)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op("MatMul", []string{c.kerasFloat(a), w}, ""), false, k), nil
	default:
		return nil, unsupported("matmul by %v (%T): tensors and constant arrays only", args[1], args[1])
	}
}
