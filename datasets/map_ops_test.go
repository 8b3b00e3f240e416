package datasets_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// tfArray is an array of testdata/keras/map_ops.json
// (tools/keras_reference/dataset_map_vectors.py).
type tfArray struct {
	Dtype string
	Shape []int
	Value []any
}

var tfDtypes = map[string]tensor.Dtype{"float32": tensor.Float32, "float64": tensor.Float64, "int8": tensor.Int8,
	"int32": tensor.Int32, "int64": tensor.Int64, "uint8": tensor.Uint8, "bool": tensor.Bool}

// dense builds the tensor an array describes.
func (a tfArray) dense(t *testing.T) *tensor.Dense {
	t.Helper()
	dt, ok := tfDtypes[a.Dtype]
	if !ok {
		t.Fatalf("dtype %s", a.Dtype)
	}
	x := tensor.New(tensor.Of(dt), tensor.WithShape(shapeOrScalar(a.Shape)...))
	for i, v := range a.Value {
		var e any
		switch dt {
		case tensor.Float32:
			e = float32(v.(float64))
		case tensor.Float64:
			e = v.(float64)
		case tensor.Int8:
			e = int8(v.(float64))
		case tensor.Int32:
			e = int32(v.(float64))
		case tensor.Int64:
			e = int64(v.(float64))
		case tensor.Uint8:
			e = uint8(v.(float64))
		case tensor.Bool:
			e = v.(bool)
		}
		if err := x.SetAt(e, unflat(i, a.Shape)...); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func shapeOrScalar(s []int) []int {
	if len(s) == 0 {
		return []int{1}
	}
	return s
}

func unflat(i int, shape []int) []int {
	if len(shape) == 0 {
		return []int{0}
	}
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	return idx
}

// equalTF checks that got has the array's dtype, shape and values
// exactly (float32 values compared as float32).
func equalTF(t *testing.T, what string, got *tensor.Dense, want tfArray) {
	t.Helper()
	if got.Dtype() != tfDtypes[want.Dtype] || !slices.Equal([]int(got.Shape()), shapeOrScalar(want.Shape)) {
		t.Fatalf("%s: %v %v, TensorFlow %s %v", what, got.Dtype(), got.Shape(), want.Dtype, want.Shape)
	}
	bad := 0
	for i, w := range want.Value {
		g, err := got.At(unflat(i, want.Shape)...)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		switch g := g.(type) {
		case float32:
			ok = g == float32(w.(float64)) || (math.IsNaN(float64(g)) && math.IsNaN(w.(float64)))
		case float64:
			ok = g == w.(float64)
		case bool:
			ok = g == w.(bool)
		case int8:
			ok = float64(g) == w.(float64)
		case int32:
			ok = float64(g) == w.(float64)
		case int64:
			ok = float64(g) == w.(float64)
		case uint8:
			ok = float64(g) == w.(float64)
		}
		if !ok {
			if bad < 3 {
				t.Errorf("%s[%d] = %v, TensorFlow %v", what, i, g, w)
			}
			bad++
		}
	}
}

type mapOpsVectors struct {
	Resize []struct {
		Name   string
		X      tfArray
		Size   []int
		Method string
		Y      tfArray
	}
	Cast []struct {
		Name  string
		X     tfArray
		Dtype string
		Y     tfArray
	}
	ExpandDims []struct {
		Shape  []int
		Axis   int
		YShape []int `json:"y_shape"`
	} `json:"expand_dims"`
	Arange []struct {
		Args []float64
		Y    tfArray
	}
	Pipeline struct {
		X, Y    tfArray
		Batch   int
		Size    []int
		Batches []struct{ X, Y tfArray }
	}
}

func readMapOps(t *testing.T) mapOpsVectors {
	t.Helper()
	b, err := os.ReadFile("testdata/keras/map_ops.json")
	if err != nil {
		t.Fatal(err)
	}
	var v mapOpsVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Resize) == 0 || len(v.Cast) == 0 || len(v.Pipeline.Batches) == 0 {
		t.Fatal("testdata/keras/map_ops.json has no cases")
	}
	return v
}

// TestResizeMatchesTensorFlow: datasets.Resize equals tf.image.resize
// exactly (bilinear and nearest, images and batches, float32, uint8 and
// int32 inputs, smaller, larger and equal sizes), dtype included.
func TestResizeMatchesTensorFlow(t *testing.T) {
	for _, c := range readMapOps(t).Resize {
		t.Run(c.Name, func(t *testing.T) {
			x := c.X.dense(t)
			y, err := datasets.Resize(x, c.Size[0], c.Size[1], c.Method)
			if err != nil {
				t.Fatal(err)
			}
			equalTF(t, "resize", y, c.Y)
			equalTF(t, "the input after the resize", x, c.X)
		})
	}
}

// TestCastMatchesTensorFlow: datasets.Cast equals tf.cast (truncation
// toward zero, integers wrapping, bool both ways, float64 rounding).
func TestCastMatchesTensorFlow(t *testing.T) {
	for _, c := range readMapOps(t).Cast {
		t.Run(c.Name, func(t *testing.T) {
			y, err := datasets.Cast(c.X.dense(t), c.Dtype)
			if err != nil {
				t.Fatal(err)
			}
			equalTF(t, "cast", y, c.Y)
		})
	}
}

// TestExpandDimsAndArangeMatchKeras: ExpandDims gives keras.ops.expand_dims'
// shapes (and shares the data), Arange np.arange's float32 values.
func TestExpandDimsAndArangeMatchKeras(t *testing.T) {
	v := readMapOps(t)
	for _, c := range v.ExpandDims {
		n := 1
		for _, d := range c.Shape {
			n *= d
		}
		data := make([]float32, n)
		var x *tensor.Dense
		if len(c.Shape) == 0 {
			x, data = tensor.New(tensor.FromScalar(float32(0))), nil
		} else {
			x = tensor.New(tensor.WithShape(c.Shape...), tensor.WithBacking(data))
		}
		y, err := datasets.ExpandDims(x, c.Axis)
		if err != nil {
			t.Fatalf("ExpandDims(%v, %d): %v", c.Shape, c.Axis, err)
		}
		if !slices.Equal([]int(y.Shape()), c.YShape) {
			t.Errorf("ExpandDims(%v, %d) has shape %v, Keras %v", c.Shape, c.Axis, y.Shape(), c.YShape)
		}
		if len(data) > 0 {
			data[0] = 7
			if y.Data().([]float32)[0] != 7 {
				t.Errorf("ExpandDims(%v, %d) does not share its input's memory", c.Shape, c.Axis)
			}
		}
	}
	for _, c := range v.Arange {
		y, err := datasets.Arange(c.Args...)
		if err != nil {
			t.Fatalf("Arange%v: %v", c.Args, err)
		}
		if len(c.Y.Value) == 0 {
			if y.Shape().TotalSize() != 0 && !(y.Shape().TotalSize() == 1 && y.Shape()[0] == 0) {
				t.Errorf("Arange%v has %v values, NumPy none", c.Args, y.Shape())
			}
			continue
		}
		equalTF(t, "arange", y, c.Y)
	}
}

// TestMapPairsMatchesTFData: the pipeline of tutorials,
// from_tensor_slices((x, y)).batch(2).map(lambda x, y: (tf.image.resize(x,
// size), y)).map(lambda x, y: (tf.cast(x, tf.uint8), y)), gives
// TensorFlow's batches.
func TestMapPairsMatchesTFData(t *testing.T) {
	p := readMapOps(t).Pipeline
	ds, err := datasets.FromTensorSlices(p.X.dense(t), p.Y.dense(t))
	if err != nil {
		t.Fatal(err)
	}
	ds = ds.Batch(p.Batch).MapPairs(func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
		x, err := datasets.Resize(x, p.Size[0], p.Size[1])
		return x, y, err
	}).MapPairs(func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
		x, err := datasets.Cast(x, datasets.Uint8)
		return x, y, err
	})
	i := 0
	for e := range ds.All(context.Background()) {
		if i >= len(p.Batches) {
			t.Fatalf("more than TensorFlow's %d batches", len(p.Batches))
		}
		equalTF(t, "batch x", e[0], p.Batches[i].X)
		equalTF(t, "batch y", e[1], p.Batches[i].Y)
		i++
	}
	if err := ds.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(p.Batches) {
		t.Errorf("%d batches, TensorFlow %d", i, len(p.Batches))
	}
}

func TestMapOpsErrors(t *testing.T) {
	img := tensor.New(tensor.WithShape(2, 2, 1), tensor.WithBacking([]float32{1, 2, 3, 4}))
	one, _ := datasets.FromTensorSlices(img)
	it := one.MapPairs(func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) { return x, y, nil }).Iterate(context.Background())
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	if err := it.Err(); err == nil || !strings.Contains(err.Error(), "1 tensor(s), not an (x, y) pair") {
		t.Errorf("MapPairs over single tensors: %v", err)
	}
	it.Close()
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(datasets.Resize(img, 0, 2)), "must be positive"},
		{second(datasets.Resize(img, 2, 2, "bicubic")), "not supported"},
		{second(datasets.Resize(tensor.New(tensor.WithShape(4), tensor.WithBacking([]float32{1, 2, 3, 4})), 2, 2)), "want (height, width, channels)"},
		{second(datasets.Cast(img, "complex64")), "not one of"},
		{second(datasets.Cast(tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{1, 300})), datasets.Uint8)), "300"},
		{second(datasets.Cast(tensor.New(tensor.WithShape(1), tensor.WithBacking([]float32{float32(math.NaN())})), datasets.Int32)), "NaN"},
		{second(datasets.ExpandDims(img, 4)), "out of range"},
		{second(datasets.ExpandDims(img, -5)), "out of range"},
		{second(datasets.Arange(0, 1, 0)), "step"},
		{second(datasets.Arange()), "arguments"},
		{second(datasets.Arange(math.Inf(1))), "finite"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", c.err, c.want)
		}
	}
}

func second(_ *tensor.Dense, err error) error { return err }
