package onnx

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestOperationConstantArrays: a constant array argument (EfficientNet's
// ImageNet stem multiplies the pixels by one scale per channel) is a
// constant of its shape in Keras' layout, and reordered like the tensor
// when that is channels-first: Keras (1, 1, 4, 3) of (width, channels) is
// (3, 1, 4) against NCHW, element [c][0][w] = a[0][w][c].
func TestOperationConstantArrays(t *testing.T) {
	x := layers.Input([]int{5, 4, 3})
	scale := layers.OpArray{Shape: []int{3}, Values: []float64{2, 3, 4}, Dtype: "float32"}
	h := layers.CallOp("Multiply", nil, x, scale)
	h = layers.Apply(layers.NewConv2D(3, 1), h)
	wc := make([]float64, 12)
	for i := range wc {
		wc[i] = float64(i)
	}
	y := layers.CallOp("Add", nil, layers.OpArray{Shape: []int{1, 1, 4, 3}, Values: wc, Dtype: "float32"}, h)
	d := export(t, ins(x), ins(y))
	want := []string{"Mul", "Transpose", "Conv", "Add", "Transpose"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	s := d.inits[d.nodes[0].inputs[1]]
	if d.nodes[0].inputs[0] != d.inputs[0].name || !slices.Equal(s.dims, []int64{3}) || s.float(2) != 4 {
		t.Errorf("channel scales: inputs %v, dims %v", d.nodes[0].inputs, s.dims)
	}
	a := d.inits[d.nodes[3].inputs[0]]
	if !slices.Equal(a.dims, []int64{3, 1, 4}) {
		t.Fatalf("channels-first constant dims %v", a.dims)
	}
	for c := range 3 {
		for w := range 4 {
			if got := a.float(c*4 + w); got != float32(wc[w*3+c]) {
				t.Errorf("constant[%d][0][%d] = %v, want a[0][%d][%d] = %v", c, w, got, w, c, wc[w*3+c])
			}
		}
	}
	// An array of the tensor's rank or more would broadcast over the batch.
	z := layers.Input([]int{3})
	big := layers.CallOp("Multiply", nil, z, layers.OpArray{Shape: []int{2, 3}, Values: []float64{1, 2, 3, 4, 5, 6}, Dtype: "float32"})
	_, err := Marshal(graphOf(t, ins(z), ins(big)))
	var le *LayerError
	if !errors.As(err, &le) || le.Class != "Multiply" || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "batch axis") {
		t.Errorf("a (2, 3) constant against (batch, 3): error %v", err)
	}
}

// ints64 reads an int64 initializer's values.
func ints64(d decodedTensor) []int64 {
	out := make([]int64, len(d.raw)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(d.raw[8*i:]))
	}
	return out
}

// constInput is the values of node n's input i, an int64 initializer.
func constInput(t *testing.T, d *decoded, n decodedNode, i int) []int64 {
	t.Helper()
	c, ok := d.inits[n.inputs[i]]
	if !ok || c.dtype != 7 {
		t.Fatalf("%s input %d (%q) is not an int64 constant", n.op, i, n.inputs[i])
	}
	return ints64(c)
}

// TestShapeOperationNodes: reshape keeps the batch as ONNX's 0, transpose
// its axes, expand_dims is an Unsqueeze at the output's axes (sorted),
// squeeze without axis drops every size-1 axis but the batch, stack
// unsqueezes each tensor at the axis then concatenates there, and
// concatenate of a channels-first value works in Keras' layout.
func TestShapeOperationNodes(t *testing.T) {
	x := layers.Input([]int{4, 6})
	r := layers.CallOp("Reshape", map[string]any{"newshape": []any{-1.0, 24.0}}, x)
	tr := layers.CallOp("Transpose", map[string]any{"axes": []any{0.0, 2.0, 1.0}}, x)
	e := layers.CallOp("ExpandDims", map[string]any{"axis": []any{-1.0, 1.0}}, tr) // (b, 1, 6, 4, 1)
	s := layers.CallOp("Squeeze", nil, e)
	st := layers.CallOp("Stack", map[string]any{"axis": -1.0}, []any{x, x})
	d := export(t, ins(x), ins(r, s, st))
	want := []string{"Reshape", "Transpose", "Unsqueeze", "Squeeze", "Unsqueeze", "Unsqueeze", "Concat"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	n := d.nodes
	if got := constInput(t, d, n[0], 1); !slices.Equal(got, []int64{0, 24}) {
		t.Errorf("reshape to %v, want [0 24]", got)
	}
	if !slices.Equal(n[1].ints["perm"], []int64{0, 2, 1}) {
		t.Errorf("transpose perm %v", n[1].ints["perm"])
	}
	if got := constInput(t, d, n[2], 1); !slices.Equal(got, []int64{1, 4}) {
		t.Errorf("expand_dims axes %v, want [1 4] of the rank-5 output", got)
	}
	if got := constInput(t, d, n[3], 1); !slices.Equal(got, []int64{1, 4}) {
		t.Errorf("squeeze axes %v, want the size-1 axes [1 4]", got)
	}
	for _, u := range n[4:6] {
		if got := constInput(t, d, u, 1); !slices.Equal(got, []int64{3}) || u.inputs[0] != d.inputs[0].name {
			t.Errorf("stack: unsqueeze %v at %v, want the input at 3", u.inputs, got)
		}
	}
	if n[6].ints["axis"][0] != 3 || !slices.Equal(n[6].inputs, []string{n[4].outputs[0], n[5].outputs[0]}) {
		t.Errorf("stack's concat: axis %v, inputs %v", n[6].ints["axis"], n[6].inputs)
	}

	img := layers.Input([]int{3, 3, 2})
	h := layers.Apply(layers.NewConv2D(2, 1), img)
	c := layers.CallOp("Concatenate", map[string]any{"axis": 1.0}, []any{h, h})
	d = export(t, ins(img), ins(c))
	if want := []string{"Transpose", "Conv", "Transpose", "Concat"}; !slices.Equal(d.ops(), want) || d.nodes[3].ints["axis"][0] != 1 {
		t.Errorf("concatenate of a channels-first value: ops %v, want %v on Keras' axis 1", d.ops(), want)
	}
}

// TestGetItemNodes: the key's bounds resolved as Python's slice.indices:
// x[:, 1:5, ::2] one Slice of axes 1 and 2; negative steps end past the
// first element with INT64_MIN (an end of -1 would count from the end);
// an integer index is a one-wide Slice then a Squeeze, None an Unsqueeze
// at its place in the output; Ellipsis fills in the axes.
func TestGetItemNodes(t *testing.T) {
	i := func(v int) *int { return &v }
	x := layers.Input([]int{6, 4})
	a := layers.CallOp("GetItem", nil, x, []any{layers.OpSlice{}, layers.OpSlice{Start: i(1), Stop: i(5)}, layers.OpSlice{Step: i(2)}})
	b := layers.CallOp("GetItem", nil, x, []any{layers.OpSlice{}, layers.OpSlice{Start: i(-1), Step: i(-2)}, layers.OpSlice{Step: i(-1)}})
	c := layers.CallOp("GetItem", nil, x, []any{layers.OpEllipsis{}, nil, -2.0})
	d := export(t, ins(x), ins(a, b, c))
	want := []string{"Slice", "Slice", "Slice", "Squeeze", "Unsqueeze"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	check := func(n decodedNode, what string, starts, ends, axes, steps []int64) {
		t.Helper()
		for j, w := range [][]int64{starts, ends, axes, steps} {
			if got := constInput(t, d, n, j+1); !slices.Equal(got, w) {
				t.Errorf("%s: Slice input %d is %v, want %v", what, j+1, got, w)
			}
		}
	}
	check(d.nodes[0], "x[:, 1:5, ::2]", []int64{1, 0}, []int64{5, 3}, []int64{1, 2}, []int64{1, 2})
	check(d.nodes[1], "x[:, -1::-2, ::-1]", []int64{5, 3}, []int64{0, math.MinInt64}, []int64{1, 2}, []int64{-2, -1})
	check(d.nodes[2], "x[..., None, -2]", []int64{2}, []int64{3}, []int64{2}, []int64{1})
	if got := constInput(t, d, d.nodes[3], 1); !slices.Equal(got, []int64{2}) {
		t.Errorf("x[..., None, -2]: squeeze of %v, want the indexed axis 2", got)
	}
	if got := constInput(t, d, d.nodes[4], 1); !slices.Equal(got, []int64{2}) {
		t.Errorf("x[..., None, -2]: unsqueeze at %v, want the output's axis 2", got)
	}
	if o := d.outputs[2]; !slices.Equal(o.dims[1:], []int64{6, 1}) {
		t.Errorf("x[..., None, -2] of shape %v", o.dims)
	}
}

// TestMathOperationNodes: comparisons are cast to float32; the int32 cast
// truncates by the sign (Ceil below 0, Floor above) plus 0; bool is
// Not(Equal(x, 0)); sign is (x > 0) - (x < 0); where tests its condition
// != 0; Sum's axes are an input at opset 17, Mean's an attribute; all is
// a ReduceMin of x != 0; axis=() is the value itself.
func TestMathOperationNodes(t *testing.T) {
	x := layers.Input([]int{4, 6})
	outs := []*layers.KerasTensor{
		layers.CallOp("GreaterEqual", nil, x, 0.5),
		layers.CallOp("Cast", map[string]any{"dtype": "int32"}, x),
		layers.CallOp("Cast", map[string]any{"dtype": "bool"}, x),
		layers.CallOp("Sign", nil, x),
		layers.CallOp("Where", nil, x, x, 2.0),
		layers.CallOp("Sum", map[string]any{"axis": []any{1.0, -1.0}, "keepdims": true}, x),
		layers.CallOp("Mean", map[string]any{"axis": 1.0}, x),
		layers.CallOp("All", map[string]any{"axis": -1.0}, x),
		layers.CallOp("Max", map[string]any{"axis": []any{}}, x),
	}
	d := export(t, ins(x), outs)
	want := []string{"GreaterOrEqual", "Cast",
		"Less", "Ceil", "Floor", "Where", "Add",
		"Equal", "Not", "Cast",
		"Greater", "Cast", "Less", "Cast", "Sub",
		"Equal", "Not", "Where",
		"ReduceSum", "ReduceMean",
		"Equal", "Not", "Cast", "ReduceMin",
		"Identity"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	n := d.nodes
	if n[1].ints["to"][0] != 1 || n[5].inputs[1] != n[3].outputs[0] || n[5].inputs[2] != n[4].outputs[0] {
		t.Errorf("the int32 cast: Where(x < 0, Ceil, Floor) inputs %v", n[5].inputs)
	}
	if n[17].inputs[0] != n[16].outputs[0] || n[17].inputs[1] != d.inputs[0].name || d.inits[n[17].inputs[2]].float(0) != 2 {
		t.Errorf("where: inputs %v", n[17].inputs)
	}
	if got := constInput(t, d, n[18], 1); !slices.Equal(got, []int64{1, 2}) || n[18].ints["keepdims"][0] != 1 {
		t.Errorf("sum: axes %v, keepdims %v", got, n[18].ints["keepdims"])
	}
	if !slices.Equal(n[19].ints["axes"], []int64{1}) || n[19].ints["keepdims"][0] != 0 || len(n[19].inputs) != 1 {
		t.Errorf("mean: axes %v, keepdims %v, inputs %v", n[19].ints["axes"], n[19].ints["keepdims"], n[19].inputs)
	}
	if !slices.Equal(n[23].ints["axes"], []int64{2}) || n[23].inputs[0] != n[22].outputs[0] {
		t.Errorf("all: axes %v of %v", n[23].ints["axes"], n[23].inputs)
	}
}

// TestOperationRefusals: the configs the symbolic batch cannot take, or
// that the exporter does not write, are refused naming the node and its
// class, as unsupported; nothing is written for them.
func TestOperationRefusals(t *testing.T) {
	i := func(v int) *int { return &v }
	cases := []struct {
		class     string
		cfg       map[string]any
		args      []any
		in, out   []int
		in2, want string
	}{
		{class: "Reshape", cfg: map[string]any{"newshape": []any{2.0, -1.0}}, in: []int{-1, 6}, out: []int{2, -1}, want: "fixes the batch"},
		{class: "Reshape", cfg: map[string]any{"newshape": []any{-1.0, 4.0}}, in: []int{-1, 6}, out: []int{-1, 4}, want: "across the batch"},
		{class: "Transpose", cfg: map[string]any{"axes": nil}, in: []int{-1, 6}, out: []int{6, -1}, want: "reverses the batch"},
		{class: "Transpose", cfg: map[string]any{"axes": []any{1.0, 0.0, 2.0}}, in: []int{-1, 3, 4}, out: []int{3, -1, 4}, want: "move the batch"},
		{class: "ExpandDims", cfg: map[string]any{"axis": 0.0}, in: []int{-1, 3}, out: []int{1, -1, 3}, want: "before the batch"},
		{class: "Squeeze", cfg: map[string]any{"axis": 0.0}, in: []int{-1, 3}, out: []int{3}, want: "batch axis"},
		{class: "Squeeze", cfg: map[string]any{"axis": nil}, in: []int{-1, -1, 1}, out: []int{-1, -1}, want: "unknown size"},
		{class: "GetItem", args: []any{[]any{layers.OpSlice{Start: i(1)}}}, in: []int{-1, 3}, out: []int{-1, 3}, want: "slices the batch"},
		{class: "GetItem", args: []any{0.0}, in: []int{-1, 3}, out: []int{3}, want: "indexes the batch"},
		{class: "GetItem", args: []any{[]any{nil}}, in: []int{-1, 3}, out: []int{1, -1, 3}, want: "before the batch"},
		{class: "GetItem", args: []any{[]any{layers.OpSlice{}, layers.OpSlice{Stop: i(2)}}}, in: []int{-1, -1}, out: []int{-1, 2}, want: "unknown size"},
		{class: "Concatenate", cfg: map[string]any{"axis": 0.0}, in: []int{-1, 3}, out: []int{-1, 3}, want: "batch axis"},
		{class: "Stack", cfg: map[string]any{"axis": 0.0}, in: []int{-1, 3}, out: []int{2, -1, 3}, want: "batch axis"},
		{class: "Matmul", in: []int{-1, 3}, in2: "tensor", out: []int{-1, 3}, want: "matmul of tensors"},
		{class: "Sum", cfg: map[string]any{"axis": nil}, in: []int{-1, 3}, out: []int{}, want: "every axis"},
		{class: "Mean", cfg: map[string]any{"axis": []any{1.0, 0.0}}, in: []int{-1, 3}, out: []int{}, want: "reduces the batch"},
		{class: "Cast", cfg: map[string]any{"dtype": "float16"}, in: []int{-1, 3}, out: []int{-1, 3}, want: "float16"},
	}
	for _, tc := range cases {
		args := append([]any{layers.OpTensor(0)}, tc.args...)
		if tc.class == "Concatenate" || tc.class == "Stack" {
			args = []any{[]any{layers.OpTensor(0), layers.OpTensor(1)}}
			tc.in2 = "tensor"
		} else if tc.in2 == "tensor" {
			args = append(args, layers.OpTensor(1))
		}
		cfg := map[string]any{"name": "node"}
		for k, v := range tc.cfg {
			cfg[k] = v
		}
		op := layers.NewOperation(tc.class, cfg, args, nil)
		if err := op.Err(); err != nil {
			t.Fatalf("%s %v: %v", tc.class, tc.cfg, err)
		}
		g := Graph{Tensors: []Tensor{{Shape: tc.in}, {Shape: tc.out}}, Inputs: []Port{{Name: "x", Tensor: 0}}, Outputs: []Port{{Name: "y", Tensor: 1}}}
		node := Node{Layer: op, Name: "node", Inputs: []int{0}, Output: 1}
		if tc.in2 == "tensor" {
			node.Inputs = []int{0, 0}
		}
		g.Nodes = []Node{node}
		_, err := Marshal(g)
		var le *LayerError
		if !errors.As(err, &le) || le.Layer != "node" || le.Class != tc.class || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v %v: error %v, want an unsupported %q naming the node", tc.class, tc.cfg, tc.args, err, tc.want)
		}
	}
}
