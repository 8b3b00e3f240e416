package layers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func intp(n int) *int { return &n }

// opForward computes an operation of the given call arguments on inputs.
func opForward(t *testing.T, class string, cfg map[string]any, args []any, inputs ...ops.Value) ops.Value {
	t.Helper()
	o := layers.NewOperation(class, cfg, args, nil)
	if err := o.Err(); err != nil {
		t.Fatalf("%s: %v", class, err)
	}
	return layertest.Forward(t, o, false, inputs...)
}

func TestOperationValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{2, 3}, Data: []float32{1, -2, 0, 4, 5, -6}}
	y := ops.Value{Shape: ops.Shape{3}, Data: []float32{1, 0, 2}}
	T0, T1 := layers.OpTensor(0), layers.OpTensor(1)
	cases := []struct {
		class string
		cfg   map[string]any
		args  []any
		in    []ops.Value
		shape ops.Shape
		want  []float64
	}{
		{"Add", nil, []any{T0, 3.0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{4, 1, 3, 7, 8, -3}},
		{"Subtract", nil, []any{2.0, T0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{1, 4, 2, -2, -3, 8}},
		{"Multiply", nil, []any{T0, T1}, []ops.Value{x, y}, ops.Shape{2, 3}, []float64{1, 0, 0, 4, 0, -12}},
		{"Divide", nil, []any{T0, 4.0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{0.25, -0.5, 0, 1, 1.25, -1.5}},
		{"Power", nil, []any{T0, 2.0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{1, 4, 0, 16, 25, 36}},
		{"Maximum", nil, []any{T0, 0.5}, []ops.Value{x}, ops.Shape{2, 3}, []float64{1, 0.5, 0.5, 4, 5, 0.5}},
		{"Minimum", nil, []any{T0, []any{0.0, 0.0, 9.0}}, []ops.Value{x}, ops.Shape{2, 3}, []float64{0, -2, 0, 0, 0, -6}},
		{"NotEqual", nil, []any{T0, 0.0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{1, 1, 0, 1, 1, 1}},
		{"LessEqual", nil, []any{T0, T1}, []ops.Value{x, y}, ops.Shape{2, 3}, []float64{1, 1, 1, 0, 0, 1}},
		{"LogicalAnd", nil, []any{T0, T1}, []ops.Value{x, y}, ops.Shape{2, 3}, []float64{1, 0, 0, 1, 0, 1}},
		{"LogicalNot", nil, []any{T0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{0, 0, 1, 0, 0, 0}},
		{"Any", map[string]any{"axis": -1.0, "keepdims": false}, []any{T0}, []ops.Value{{Shape: ops.Shape{2, 2}, Data: []float32{0, 0, 0, 3}}}, ops.Shape{2}, []float64{0, 1}},
		{"Sum", map[string]any{"axis": 1.0, "keepdims": true}, []any{T0}, []ops.Value{x}, ops.Shape{2, 1}, []float64{-1, 3}},
		{"Mean", map[string]any{"axis": []any{1.0}, "keepdims": false}, []any{T0}, []ops.Value{x}, ops.Shape{2}, []float64{-1.0 / 3, 1}},
		{"Min", map[string]any{"axis": -1.0, "keepdims": false, "initial": nil}, []any{T0}, []ops.Value{x}, ops.Shape{2}, []float64{-2, -6}},
		{"All", map[string]any{"axis": 1.0}, []any{T0}, []ops.Value{x}, ops.Shape{2}, []float64{0, 1}},
		{"Cast", map[string]any{"dtype": "int32"}, []any{T0}, []ops.Value{{Shape: ops.Shape{1, 2}, Data: []float32{1.7, -1.7}}}, ops.Shape{1, 2}, []float64{1, -1}},
		{"Where", nil, []any{T0, T1, 0.0}, []ops.Value{x, y}, ops.Shape{2, 3}, []float64{1, 0, 0, 1, 0, 2}},
		{"Clip", map[string]any{"x_min": -1.0, "x_max": 2.0}, []any{T0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{1, -1, 0, 2, 2, -1}},
		{"Reshape", map[string]any{"newshape": []any{-1.0, 3.0, 1.0}}, []any{T0}, []ops.Value{x}, ops.Shape{2, 3, 1}, []float64{1, -2, 0, 4, 5, -6}},
		{"Transpose", map[string]any{"axes": []any{0.0, 2.0, 1.0}}, []any{T0}, []ops.Value{{Shape: ops.Shape{1, 2, 3}, Data: x.Data}}, ops.Shape{1, 3, 2}, []float64{1, 4, -2, 5, 0, -6}},
		{"ExpandDims", map[string]any{"axis": -1.0}, []any{T0}, []ops.Value{x}, ops.Shape{2, 3, 1}, []float64{1, -2, 0, 4, 5, -6}},
		{"Squeeze", map[string]any{"axis": nil}, []any{T0}, []ops.Value{{Shape: ops.Shape{2, 1, 2}, Data: []float32{1, 2, 3, 4}}}, ops.Shape{2, 2}, []float64{1, 2, 3, 4}},
		{"Concatenate", map[string]any{"axis": -1.0}, []any{[]any{T0, T1}}, []ops.Value{x, {Shape: ops.Shape{2, 1}, Data: []float32{7, 8}}}, ops.Shape{2, 4}, []float64{1, -2, 0, 7, 4, 5, -6, 8}},
		{"Stack", map[string]any{"axis": 1.0}, []any{[]any{T0, T1}}, []ops.Value{y, y}, ops.Shape{3, 2}, []float64{1, 1, 0, 0, 2, 2}},
		{"Matmul", nil, []any{T0, []any{[]any{1.0}, []any{1.0}, []any{1.0}}}, []ops.Value{x}, ops.Shape{2, 1}, []float64{-1, 3}},
		{"GetItem", nil, []any{T0, []any{layers.OpSlice{}, 1.0}}, []ops.Value{x}, ops.Shape{2}, []float64{-2, 5}},
		{"GetItem", nil, []any{T0, []any{layers.OpEllipsis{}, layers.OpSlice{Step: intp(-2)}}}, []ops.Value{x}, ops.Shape{2, 2}, []float64{0, 1, -6, 4}},
		{"GetItem", nil, []any{T0, []any{layers.OpSlice{}, nil, layers.OpSlice{Stop: intp(-1)}}}, []ops.Value{x}, ops.Shape{2, 1, 2}, []float64{1, -2, 4, 5}},
		{"Relu", nil, []any{T0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{1, 0, 0, 4, 5, 0}},
		{"HardSigmoid", nil, []any{T0}, []ops.Value{x}, ops.Shape{2, 3}, []float64{4.0 / 6, 1.0 / 6, 0.5, 1, 1, 0}},
		{"Softmax", map[string]any{"axis": 0.0}, []any{T0}, []ops.Value{{Shape: ops.Shape{2, 1}, Data: []float32{0, 0}}}, ops.Shape{2, 1}, []float64{0.5, 0.5}},
	}
	for _, c := range cases {
		got := opForward(t, c.class, c.cfg, c.args, c.in...)
		if c.want == nil {
			continue // shape and errors only
		}
		if !got.Shape.Equal(c.shape) {
			t.Errorf("%s%v: shape %v, want %v", c.class, c.args, got.Shape, c.shape)
			continue
		}
		layertest.AllClose(t, c.class, got.Data, c.want, 1e-6)
	}
}

func TestOperationErrors(t *testing.T) {
	T0 := layers.OpTensor(0)
	cases := []struct {
		class string
		cfg   map[string]any
		args  []any
		want  string
	}{
		{"Frobnicate", nil, []any{T0}, "not an operation gokeras computes"},
		{"Any", map[string]any{"axes": 1.0}, []any{T0}, `"axes" is not an argument of Any`},
		{"Add", nil, []any{T0}, `"x2" is missing`},
		{"Add", nil, []any{T0, 1.0, 2.0}, "takes 2 arguments"},
		{"Add", nil, []any{1.0, 2.0}, "no tensor argument"},
		{"Add", nil, []any{T0, layers.OpTensor(2)}, "not numbered"},
		{"Cast", map[string]any{"dtype": "complex64"}, []any{T0}, "complex64"},
		{"Max", map[string]any{"initial": 1.0}, []any{T0}, "initial"},
		{"Reshape", map[string]any{"newshape": "x"}, []any{T0}, "newshape"},
	}
	for _, c := range cases {
		o := layers.NewOperation(c.class, c.cfg, c.args, nil)
		if err := o.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%v: error %v, want one saying %q", c.class, c.args, err, c.want)
		}
	}
	// Shape misuse when called: an error naming the operation.
	x := layers.Input([]int{3})
	for _, c := range []struct {
		class string
		cfg   map[string]any
		args  []any
		want  string
	}{
		{"GetItem", nil, []any{x, []any{layers.OpSlice{}, 5.0}}, "index 5 is out of bounds"},
		{"GetItem", nil, []any{x, []any{layers.OpSlice{}, layers.OpSlice{Start: intp(3)}}}, "selects nothing"},
		{"GetItem", nil, []any{x, []any{layers.OpEllipsis{}, layers.OpEllipsis{}}}, "single ellipsis"},
		{"Reshape", map[string]any{"newshape": []any{-1.0, 7.0}}, []any{x}, "cannot reshape"},
		{"Sum", map[string]any{"axis": nil}, []any{x}, "does not keep the batch axis"},
		{"Transpose", map[string]any{"axes": []any{1.0, 0.0}}, []any{x}, "does not keep the batch axis"},
		{"Squeeze", map[string]any{"axis": 1.0}, []any{x}, "not of size 1"},
		{"Add", nil, []any{x, []any{1.0, 2.0}}, "broadcast"},
		{"Add", nil, []any{x, "three"}, "neither a tensor nor a number"},
	} {
		y := layers.CallOp(c.class, c.cfg, c.args...)
		if err := y.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%v: error %v, want one saying %q", c.class, c.args, err, c.want)
		}
	}
}

// TestOperationConfigRoundTrip: an operation's config makes the same
// operation, and encodes as JSON.
func TestOperationConfigRoundTrip(t *testing.T) {
	x := layers.Input([]int{4, 2})
	y := layers.CallOp("Mean", map[string]any{"axis": []any{1.0}, "keepdims": true, "name": "avg"}, x)
	if err := y.Err(); err != nil {
		t.Fatal(err)
	}
	op := y.Node().Layer.(*layers.Operation)
	cfg := op.GetConfig()
	if cfg["name"] != "avg" || cfg["keepdims"] != true {
		t.Errorf("config %v", cfg)
	}
	if _, err := json.Marshal(cfg); err != nil {
		t.Error(err)
	}
	args, kwargs := op.CallArguments()
	again := layers.NewOperation(op.ClassName(), cfg, args, kwargs)
	if err := again.Err(); err != nil {
		t.Fatal(err)
	}
	if !again.SameCall(args, kwargs) || again.Name() != "avg" || again.Module() != "keras.src.ops.numpy" {
		t.Errorf("round trip: %v %v", again.Name(), again.Module())
	}
	if !y.Shape().Equal(ops.Shape{-1, 1, 2}) {
		t.Errorf("shape %v", y.Shape())
	}
	for _, c := range layers.OperationClasses() {
		if layers.OperationModule(c) == "" {
			t.Errorf("%s has no module", c)
		}
	}
}

// TestSliceIndicesMatchPython: GetItem's slices select what Python's
// slice.indices selects, on a range of 5 (the expected lists are
// Python's list(range(5))[start:stop:step]).
func TestSliceIndicesMatchPython(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 5}, Data: []float32{0, 1, 2, 3, 4}}
	for _, c := range []struct {
		start, stop, step *int
		want              []float64
	}{
		{nil, nil, nil, []float64{0, 1, 2, 3, 4}},
		{intp(-2), nil, nil, []float64{3, 4}},
		{nil, intp(-2), nil, []float64{0, 1, 2}},
		{nil, nil, intp(-1), []float64{4, 3, 2, 1, 0}},
		{intp(3), intp(0), intp(-1), []float64{3, 2, 1}},
		{intp(10), intp(-10), intp(-2), []float64{4, 2, 0}},
		{intp(-10), intp(10), intp(3), []float64{0, 3}},
		{intp(1), intp(100), intp(2), []float64{1, 3}},
	} {
		s := layers.OpSlice{Start: c.start, Stop: c.stop, Step: c.step}
		got := opForward(t, "GetItem", nil, []any{layers.OpTensor(0), []any{layers.OpSlice{}, s}}, x)
		layertest.AllClose(t, "GetItem", got.Data, c.want, 0)
	}
}

func TestMaskAttach(t *testing.T) {
	x := layers.Input([]int{4, 2})
	m := layers.Input([]int{4})
	l := layers.NewMaskAttach()
	y := layers.Apply(l, x, m)
	if err := y.Err(); err != nil {
		t.Fatal(err)
	}
	if !y.Shape().Equal(ops.Shape{-1, 4, 2}) {
		t.Errorf("shape %v", y.Shape())
	}
	tr := ops.NewTrace(false, 0, 0)
	xt := tr.Input("x", ops.Shape{3, 4, 2})
	mt := tr.Input("m", ops.Shape{3, 4})
	out := l.Call([]ops.Tensor{xt, mt}, false)
	if layers.Mask(out).Node() != mt.Node() {
		t.Error("the output does not carry the mask")
	}
	if !layers.Mask(xt).IsNone() {
		t.Error("the input got the mask too")
	}
	if got := layers.Apply(l, x); got.Err() == nil {
		t.Error("one input: no error")
	}
}

// TestOperationSameCall: two parses of one call (slices apart in memory)
// are the same call; other constants are not.
func TestOperationSameCall(t *testing.T) {
	args := func(stop int) []any {
		return []any{layers.OpTensor(0), []any{layers.OpSlice{Start: intp(1), Stop: intp(stop)}, layers.OpEllipsis{}}}
	}
	o := layers.NewOperation("GetItem", nil, args(3), nil)
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	if !o.SameCall(args(3), map[string]any{}) {
		t.Error("the same call, parsed again, is not the same")
	}
	if o.SameCall(args(4), map[string]any{}) {
		t.Error("another slice is the same call")
	}
	add := layers.NewOperation("Add", nil, []any{layers.OpTensor(0), 3.0}, nil)
	if !add.SameCall([]any{layers.OpTensor(0), 3}, nil) || add.SameCall([]any{layers.OpTensor(0), true}, nil) {
		t.Error("numbers compare by value, booleans apart")
	}
}
