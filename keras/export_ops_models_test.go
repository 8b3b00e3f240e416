package keras

import (
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// exportArrayOps: the shape, indexing, reduction, comparison and cast
// operation nodes on a channels-first value (after a Conv2D) and on the
// input itself, for onnxruntime against gokeras: a slice with negative
// steps, Ellipsis, None and an integer index, a reshape and transpose,
// matmul of stacks and by a constant vector, expand_dims/squeeze without
// axis, stack on the last axis, sums with keepdims; the discontinuous
// ones (the int32 cast truncating toward zero, sign, not, xor, all) on
// exact values of the input (3x), where the two runtimes agree bit for
// bit, the continuous ones on the convolution's output.
func exportArrayOps(t *testing.T) *Model {
	i := func(v int) *int { return &v }
	in := layers.Input([]int{5, 4, 3})
	h := layers.Apply(layers.NewConv2D(3, 1), in)
	a := layers.CallOp("GetItem", nil, h, []any{layers.OpSlice{}, layers.OpSlice{Start: i(-1), Step: i(-2)}, layers.OpEllipsis{}, layers.OpSlice{Step: i(-1)}})
	b := layers.CallOp("Reshape", map[string]any{"newshape": []any{-1.0, 12.0, 3.0}}, a)
	c := layers.CallOp("Transpose", map[string]any{"axes": []any{0.0, 2.0, 1.0}}, b)
	d := layers.CallOp("Matmul", nil, c, b)
	e := layers.CallOp("ExpandDims", map[string]any{"axis": []any{1.0, -1.0}}, d)
	f := layers.CallOp("Squeeze", nil, e)
	g := layers.CallOp("Stack", map[string]any{"axis": -1.0}, []any{f, layers.CallOp("Multiply", nil, f, 2.0)})
	sum := layers.CallOp("Sum", map[string]any{"axis": []any{1.0, 2.0}, "keepdims": true}, g)
	vec := layers.CallOp("Matmul", nil, b, layers.OpArray{Shape: []int{3}, Values: []float64{0.5, -1, 2}, Dtype: "float32"})
	pos := layers.CallOp("Where", nil, layers.CallOp("Greater", nil, h, 0.0), h, 0.0)
	rec := layers.CallOp("Reciprocal", nil, layers.CallOp("Add", nil, layers.CallOp("Abs", nil, h), 1.0))
	amax := layers.CallOp("Amax", map[string]any{"axis": -1.0}, layers.CallOp("Add", nil, pos, rec))
	pick := layers.CallOp("GetItem", nil, h, []any{layers.OpSlice{}, 2.0, layers.OpSlice{Start: i(1), Stop: i(3)}, nil})

	ci := layers.CallOp("Cast", map[string]any{"dtype": "int32"}, layers.CallOp("Multiply", nil, in, 3.0))
	not := layers.CallOp("LogicalNot", nil, ci)
	xor := layers.CallOp("LogicalXor", nil, layers.CallOp("Greater", nil, in, 0.0), layers.CallOp("GreaterEqual", nil, ci, 1.0))
	all := layers.CallOp("All", map[string]any{"axis": []any{1.0}, "keepdims": true}, layers.CallOp("LessEqual", nil, ci, 1.0))
	sign := layers.CallOp("Sign", nil, ci)
	cat := layers.CallOp("Concatenate", map[string]any{"axis": 2.0}, []any{sign, not, xor, layers.CallOp("Cast", map[string]any{"dtype": "bool"}, ci)})
	mean := layers.CallOp("Mean", map[string]any{"axis": []any{-1.0, 1.0}, "keepdims": false}, cat)
	outs := []*layers.KerasTensor{sum, vec, amax, pick, ci, all, cat, mean, layers.CallOp("Min", map[string]any{"axis": 2.0}, all)}
	m, err := NewModel([]*layers.KerasTensor{in}, outs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
