package layers

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// The shape operations of keras.src.ops.numpy in saved graphs: reshape,
// transpose, expand_dims, squeeze, concatenate, stack, broadcast_to,
// matmul and indexing (x[:, 0], x[..., 1:3], x[:, ::-1], x[:, None]).
// Their axes count the batch, as Keras' do.

// oneTensor is the operation's first argument as a tensor.
func oneTensor(class string, args []any) ops.Tensor {
	return asTensor(class, args[0], firstTensor(args...))
}

// reshapeTo resolves a Keras newshape (one dimension -1 or None, inferred)
// for x.
func reshapeTo(class string, x ops.Tensor, shape []any) ops.Shape {
	out := make(ops.Shape, len(shape))
	for i, d := range shape {
		if d == nil {
			out[i] = -1
			continue
		}
		n, ok := argInt(d)
		if !ok || n < -1 || n == 0 {
			opFail(class, "newshape %v: dimension %v", describeArg(shape), describeArg(d))
		}
		out[i] = n
	}
	return out
}

// Indices resolves the Python slice s over n entries as slice.indices
// does: the first entry, how many and the step (the ONNX exporter reads
// the same bounds).
func (s OpSlice) Indices(n int) (begin, count, step int, err error) {
	step = 1
	if s.Step != nil {
		step = *s.Step
	}
	if step == 0 {
		return 0, 0, 0, fmt.Errorf("slice step cannot be zero")
	}
	adjust := func(p *int, def int) int {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += n
		}
		if step > 0 {
			return min(max(v, 0), n)
		}
		return min(max(v, -1), n-1)
	}
	if step > 0 {
		start, stop := adjust(s.Start, 0), adjust(s.Stop, n)
		if stop > start {
			count = (stop - start + step - 1) / step
		}
		return start, count, step, nil
	}
	start, stop := adjust(s.Start, n-1), adjust(s.Stop, -1)
	if start > stop {
		count = (start - stop - step - 1) / -step
	}
	return start, count, step, nil
}

// getItem is x[key] for numpy's basic indexing: integers, slices, None
// (a new axis) and one Ellipsis. A list key is a tuple: Keras' JSON
// writes x[:, 0]'s tuple as a list.
func getItem(x ops.Tensor, key any) ops.Tensor {
	const class = "GetItem"
	keys, ok := key.([]any)
	if !ok {
		keys = []any{key}
	}
	consuming, ellipses := 0, 0
	for _, k := range keys {
		switch k.(type) {
		case OpEllipsis:
			ellipses++
		case nil:
		case OpSlice:
			consuming++
		default:
			if _, ok := argInt(k); !ok {
				opFail(class, "index %v: gokeras indexes with integers, slices, None and ... (not with tensors or lists)", describeArg(k))
			}
			consuming++
		}
	}
	xs := x.Shape()
	if ellipses > 1 {
		opFail(class, "an index can only have a single ellipsis")
	}
	if consuming > len(xs) {
		opFail(class, "too many indices (%d) for a tensor of shape %v", consuming, xs)
	}
	var full []any
	for _, k := range keys {
		if _, ok := k.(OpEllipsis); ok {
			for range len(xs) - consuming {
				full = append(full, OpSlice{})
			}
			continue
		}
		full = append(full, k)
	}
	if ellipses == 0 {
		for range len(xs) - consuming {
			full = append(full, OpSlice{})
		}
	}
	begin, count, step := make([]int, len(xs)), make([]int, len(xs)), make([]int, len(xs))
	var out ops.Shape
	d := 0
	for _, k := range full {
		switch s := k.(type) {
		case nil:
			out = append(out, 1)
		case OpSlice:
			b, c, st, err := s.Indices(xs[d])
			if err != nil {
				opFail(class, "axis %d: %v", d, err)
			}
			if c == 0 {
				opFail(class, "axis %d of shape %v: the slice selects nothing (gokeras has no empty tensors)", d, xs)
			}
			begin[d], count[d], step[d] = b, c, st
			out = append(out, c)
			d++
		default:
			i, _ := argInt(k)
			if i < -xs[d] || i >= xs[d] {
				opFail(class, "index %d is out of bounds for axis %d of shape %v", i, d, xs)
			}
			if i < 0 {
				i += xs[d]
			}
			begin[d], count[d], step[d] = i, 1, 1
			d++
		}
	}
	y := ops.StridedSlice(x, begin, count, step)
	if !y.Shape().Equal(out) {
		y = ops.Reshape(y, out)
	}
	return y
}

// matmul is numpy's matmul for the cases saved graphs have: matrices,
// stacks of matrices of equal leading shape, a stack times one matrix,
// and vectors on either side.
func matmul(a, b ops.Tensor) ops.Tensor {
	const class = "Matmul"
	as, bs := a.Shape(), b.Shape()
	if len(as) == 0 || len(bs) == 0 {
		opFail(class, "matmul of a scalar (%v, %v)", as, bs)
	}
	if len(as) == 1 {
		y := matmul(ops.Reshape(a, ops.Shape{1, as[0]}), b)
		s := y.Shape()
		return ops.Reshape(y, append(s[:len(s)-2:len(s)-2], s[len(s)-1]))
	}
	if len(bs) == 1 {
		y := matmul(a, ops.Reshape(b, ops.Shape{bs[0], 1}))
		s := y.Shape()
		return ops.Reshape(y, s[:len(s)-1])
	}
	if as[len(as)-1] != bs[len(bs)-2] {
		opFail(class, "shapes %v and %v: inner dimensions differ", as, bs)
	}
	switch {
	case len(as) == 2 && len(bs) == 2:
		return ops.MatMul(a, b, false, false)
	case len(bs) == 2:
		k := as[len(as)-1]
		y := ops.MatMul(ops.Reshape(a, ops.Shape{-1, k}), b, false, false)
		return ops.Reshape(y, append(as[:len(as)-1:len(as)-1], bs[1]))
	case len(as) == len(bs) && slices.Equal(as[:len(as)-2], bs[:len(bs)-2]):
		return ops.BatchMatMul(a, b, false, false)
	}
	opFail(class, "shapes %v and %v: gokeras multiplies matrices, stacks of equal leading shape, or a stack by one matrix", as, bs)
	return ops.Tensor{}
}

func init() {
	defineOp(&opSpec{class: "Reshape", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"newshape": nil},
		make: func(c *opConfig) (opRun, error) {
			shape, ok := c.m["newshape"].([]any)
			if !ok {
				if _, isInt := argInt(c.m["newshape"]); !isInt {
					return nil, fmt.Errorf("newshape: want a list of dimensions, got %v", describeArg(c.m["newshape"]))
				}
				shape = []any{c.m["newshape"]}
			}
			return func(args []any) ops.Tensor {
				x := oneTensor("Reshape", args)
				return ops.Reshape(x, reshapeTo("Reshape", x, shape))
			}, nil
		}})
	defineOp(&opSpec{class: "Transpose", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"axes": nil},
		make: func(c *opConfig) (opRun, error) {
			axes, given := c.axes("axes")
			return func(args []any) ops.Tensor {
				x := oneTensor("Transpose", args)
				r := x.Rank()
				perm := make([]int, r)
				for i := range perm {
					perm[i] = r - 1 - i
				}
				if given {
					if len(axes) != r {
						opFail("Transpose", "axes %v do not match a tensor of shape %v", axes, x.Shape())
					}
					seen := make([]bool, r)
					for i, a := range axes {
						perm[i] = normAxis("Transpose", a, r)
						if seen[perm[i]] {
							opFail("Transpose", "axes %v repeat an axis", axes)
						}
						seen[perm[i]] = true
					}
				}
				return ops.Transpose(x, perm)
			}, nil
		}})
	defineOp(&opSpec{class: "ExpandDims", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"axis": nil},
		make: func(c *opConfig) (opRun, error) {
			axes, given := c.axes("axis")
			if !given || len(axes) == 0 {
				return nil, fmt.Errorf("axis: want an integer or a list of integers, got %v", describeArg(c.m["axis"]))
			}
			return func(args []any) ops.Tensor {
				x := oneTensor("ExpandDims", args)
				xs := x.Shape()
				r := len(xs) + len(axes)
				isNew := make([]bool, r)
				for _, a := range axes {
					p := normAxis("ExpandDims", a, r)
					if isNew[p] {
						opFail("ExpandDims", "axis %v repeats an axis", axes)
					}
					isNew[p] = true
				}
				out := make(ops.Shape, 0, r)
				j := 0
				for i := range r {
					if isNew[i] {
						out = append(out, 1)
					} else {
						out = append(out, xs[j])
						j++
					}
				}
				return ops.Reshape(x, out)
			}, nil
		}})
	defineOp(&opSpec{class: "Squeeze", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"axis": nil},
		make: func(c *opConfig) (opRun, error) {
			axes, given := c.axes("axis")
			return func(args []any) ops.Tensor {
				x := oneTensor("Squeeze", args)
				xs := x.Shape()
				drop := make([]bool, len(xs))
				if given {
					for _, a := range axes {
						p := normAxis("Squeeze", a, len(xs))
						if xs[p] != 1 {
							opFail("Squeeze", "axis %d of shape %v is not of size 1", a, xs)
						}
						drop[p] = true
					}
				} else {
					// Every axis of size 1 but the batch, which is of
					// unknown size in the saved graph.
					for i := 1; i < len(xs); i++ {
						drop[i] = xs[i] == 1
					}
				}
				var out ops.Shape
				for i, d := range xs {
					if !drop[i] {
						out = append(out, d)
					}
				}
				return ops.Reshape(x, out)
			}, nil
		}})
	concatMake := func(class string, stack bool) func(c *opConfig) (opRun, error) {
		return func(c *opConfig) (opRun, error) {
			axis := c.axis("axis")
			return func(args []any) ops.Tensor {
				list, ok := args[0].([]any)
				if !ok || len(list) == 0 {
					opFail(class, "takes a list of tensors, got %v", describeArg(args[0]))
				}
				like := firstTensor(list...)
				xs := make([]ops.Tensor, len(list))
				for i, e := range list {
					xs[i] = asTensor(class, e, like)
				}
				if stack {
					r := xs[0].Rank() + 1
					a := normAxis(class, axis, r)
					for i, x := range xs {
						s := x.Shape()
						xs[i] = ops.Reshape(x, slices.Insert(s.Clone(), a, 1))
					}
					return ops.Concat(a, xs...)
				}
				if len(xs) == 1 {
					return xs[0]
				}
				return ops.Concat(normAxis(class, axis, xs[0].Rank()), xs...)
			}, nil
		}
	}
	defineOp(&opSpec{class: "Concatenate", module: numpyModule, params: []string{"xs"}, required: 1,
		config: map[string]any{"axis": 0.0}, make: concatMake("Concatenate", false)})
	defineOp(&opSpec{class: "Stack", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"axis": 0.0}, make: concatMake("Stack", true)})
	defineOp(&opSpec{class: "BroadcastTo", module: numpyModule, params: []string{"x"}, required: 1,
		config: map[string]any{"shape": nil},
		make: func(c *opConfig) (opRun, error) {
			shape, err := argInts(c.m["shape"])
			if err != nil {
				return nil, fmt.Errorf("shape: %v", err)
			}
			return func(args []any) ops.Tensor {
				x := oneTensor("BroadcastTo", args)
				for _, d := range shape {
					if d < 1 {
						opFail("BroadcastTo", "shape %v has a dimension %d", shape, d)
					}
				}
				return ops.BroadcastTo(x, ops.Shape(shape).Clone())
			}, nil
		}})
	defineOp(&opSpec{class: "Matmul", module: numpyModule, params: []string{"x1", "x2"}, required: 2,
		make: func(*opConfig) (opRun, error) {
			return func(args []any) ops.Tensor {
				like := firstTensor(args...)
				return matmul(asTensor("Matmul", args[0], like), asTensor("Matmul", args[1], like))
			}, nil
		}})
	defineOp(&opSpec{class: "GetItem", module: numpyModule, params: []string{"x", "key"}, required: 2,
		make: func(*opConfig) (opRun, error) {
			return func(args []any) ops.Tensor {
				if !isTensor(args[0]) {
					opFail("GetItem", "indexes a tensor, got %v", describeArg(args[0]))
				}
				return getItem(args[0].(ops.Tensor), args[1])
			}, nil
		}})
}
