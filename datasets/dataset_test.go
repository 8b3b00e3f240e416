package datasets

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// collect iterates ds to the end.
func collect(t testing.TB, ds *Dataset) ([]Element, error) {
	t.Helper()
	it := ds.Iterate(context.Background())
	defer it.Close()
	var out []Element
	for e, ok := it.Next(); ok; e, ok = it.Next() {
		out = append(out, e)
	}
	return out, it.Err()
}

func mustCollect(t testing.TB, ds *Dataset) []Element {
	t.Helper()
	out, err := collect(t, ds)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// asInts flattens component j of each element into ints.
func asInts(t testing.TB, es []Element, j int) []int {
	t.Helper()
	var out []int
	for _, e := range es {
		switch v := denseSlice(contiguous(e[j])).(type) {
		case []int:
			out = append(out, v...)
		case []float32:
			for _, x := range v {
				out = append(out, int(x))
			}
		case []uint8:
			for _, x := range v {
				out = append(out, int(x))
			}
		default:
			t.Fatalf("unexpected %T", v)
		}
	}
	return out
}

// rangeDataset is (i,) for i in [0, n) as an int tensor.
func rangeDataset(t testing.TB, n int) *Dataset {
	t.Helper()
	data := make([]int, n)
	for i := range data {
		data[i] = i
	}
	ds, err := FromTensorSlices(tensor.New(tensor.WithShape(n), tensor.WithBacking(data)))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func iota(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestFromTensorSlices(t *testing.T) {
	x := tensor.New(tensor.WithShape(4, 2, 3), tensor.WithBacking(func() []float32 {
		v := make([]float32, 24)
		for i := range v {
			v[i] = float32(i)
		}
		return v
	}()))
	y := tensor.New(tensor.WithShape(4), tensor.WithBacking([]uint8{10, 11, 12, 13}))
	ds, err := FromTensorSlices(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Cardinality() != 4 {
		t.Errorf("cardinality %d", ds.Cardinality())
	}
	es := mustCollect(t, ds)
	if len(es) != 4 {
		t.Fatalf("%d elements", len(es))
	}
	for i, e := range es {
		if len(e) != 2 || !e[0].Shape().Eq([]int{2, 3}) || !e[1].IsScalar() {
			t.Fatalf("element %d shapes %v %v", i, e[0].Shape(), e[1].Shape())
		}
		if got := e[0].Data().([]float32); got[0] != float32(6*i) || got[5] != float32(6*i+5) {
			t.Errorf("element %d x = %v", i, got)
		}
		if got := e[1].Data().(uint8); got != uint8(10+i) {
			t.Errorf("element %d y = %v", i, got)
		}
	}
	// A second pass starts again from the first element.
	if es2 := mustCollect(t, ds); len(es2) != 4 || es2[0][1].Data().(uint8) != 10 {
		t.Error("second pass differs")
	}
}

func TestFromTensorSlicesErrors(t *testing.T) {
	a := tensor.New(tensor.WithShape(5, 2), tensor.WithBacking(make([]float32, 10)))
	b := tensor.New(tensor.WithShape(4), tensor.WithBacking(make([]float32, 4)))
	_, err := FromTensorSlices(a, b)
	if err == nil || !strings.Contains(err.Error(), "(5, 2)") || !strings.Contains(err.Error(), "(4)") {
		t.Errorf("mismatch: %v", err)
	}
	if _, err := FromTensorSlices(); err == nil {
		t.Error("no tensors accepted")
	}
	if _, err := FromTensorSlices(a, nil); err == nil || !strings.Contains(err.Error(), "tensor 1 is nil") {
		t.Errorf("nil: %v", err)
	}
	s := tensor.New(tensor.FromScalar(float32(1)))
	if _, err := FromTensorSlices(s); err == nil || !strings.Contains(err.Error(), "scalar") {
		t.Errorf("scalar: %v", err)
	}
}

func TestFromTensorSlicesViewAndDtypes(t *testing.T) {
	m := tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]int{0, 1, 2, 3, 4, 5}))
	col, err := m.Slice(nil, tensor.S(1)) // (3,) strided view: 1, 3, 5
	if err != nil {
		t.Fatal(err)
	}
	ds, err := FromTensorSlices(col.(*tensor.Dense),
		tensor.New(tensor.WithShape(3), tensor.WithBacking([]int16{7, 8, 9})),
		tensor.New(tensor.WithShape(3, 1), tensor.WithBacking([]bool{true, false, true})))
	if err != nil {
		t.Fatal(err)
	}
	es := mustCollect(t, ds)
	if got := asInts(t, es, 0); !slices.Equal(got, []int{1, 3, 5}) {
		t.Errorf("view rows %v", got)
	}
	if es[2][1].Data().(int16) != 9 || es[1][2].Data().([]bool)[0] != false {
		t.Errorf("other dtypes: %v %v", es[2][1], es[1][2])
	}
	b := mustCollect(t, ds.Batch(2, false))
	if !b[0][1].Shape().Eq([]int{2}) || !slices.Equal(b[1][1].Data().([]int16), []int16{9}) ||
		!slices.Equal(b[0][2].Data().([]bool), []bool{true, false}) {
		t.Errorf("batched other dtypes: %v %v", b[0][1], b[0][2])
	}
}

func TestEmptyDataset(t *testing.T) {
	x := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(0, 3))
	ds, err := FromTensorSlices(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dataset{ds, ds.Shuffle(10, 1), ds.Batch(4, false), ds.Repeat(-1),
		ds.Prefetch(2), ds.MapParallel(func(e Element) (Element, error) { return e, nil }, 3), ds.Skip(-1)} {
		if es := mustCollect(t, d); len(es) != 0 {
			t.Errorf("%d elements from an empty dataset", len(es))
		}
	}
	if c := ds.Repeat(-1).Cardinality(); c != 0 {
		t.Errorf("Repeat(-1) of empty: cardinality %d, want 0", c)
	}
}

func TestFromGenerator(t *testing.T) {
	calls := 0
	gen := func(yield func(Element) bool) error {
		calls++
		for i := range 5 {
			if !yield(Element{tensor.New(tensor.WithShape(1), tensor.WithBacking([]int{i}))}) {
				return nil
			}
		}
		return nil
	}
	ds := FromGenerator(gen, 5)
	if ds.Cardinality() != 5 {
		t.Errorf("cardinality %d", ds.Cardinality())
	}
	if got := asInts(t, mustCollect(t, ds.Repeat(2)), 0); !slices.Equal(got, append(iota(5), iota(5)...)) {
		t.Errorf("got %v", got)
	}
	if calls != 2 {
		t.Errorf("generator ran %d times for two passes", calls)
	}
	if got := asInts(t, mustCollect(t, ds.Batch(2, false)), 0); !slices.Equal(got, iota(5)) {
		t.Errorf("batched: %v", got)
	}

	// Stopping early makes yield return false and lets the generator return.
	returned := false
	stopper := FromGenerator(func(yield func(Element) bool) error {
		defer func() { returned = true }()
		for i := 0; ; i++ {
			if !yield(Element{tensor.New(tensor.WithShape(1), tensor.WithBacking([]int{i}))}) {
				return nil
			}
		}
	}, Infinite)
	if got := asInts(t, mustCollect(t, stopper.Take(3)), 0); !slices.Equal(got, iota(3)) || !returned {
		t.Errorf("take 3 of infinite generator: %v, returned=%v", got, returned)
	}

	boom := errors.New("boom")
	failing := FromGenerator(func(yield func(Element) bool) error {
		yield(Element{tensor.New(tensor.WithShape(1), tensor.WithBacking([]int{1}))})
		return boom
	}, Unknown)
	es, err := collect(t, failing)
	if len(es) != 1 || !errors.Is(err, boom) || !strings.Contains(err.Error(), "after 1 elements") {
		t.Errorf("got %d elements, %v", len(es), err)
	}
	if _, err := collect(t, FromGenerator(nil, 1)); err == nil {
		t.Error("nil generator accepted")
	}
}

func TestInvalidArguments(t *testing.T) {
	ds := rangeDataset(t, 3)
	var nilDS *Dataset
	for name, d := range map[string]*Dataset{
		"Batch(0)":         ds.Batch(0, false),
		"Shuffle(0)":       ds.Shuffle(0, 1),
		"Map(nil)":         ds.Map(nil),
		"MapParallel(nil)": ds.MapParallel(nil, 2),
		"Prefetch(-2)":     ds.Prefetch(-2),
		"nil.Take":         nilDS.Take(1),
		"after error":      ds.Batch(-1, false).Take(2).Prefetch(1),
	} {
		if d.Cardinality() != Unknown {
			t.Errorf("%s: cardinality %d, want Unknown", name, d.Cardinality())
		}
		es, err := collect(t, d)
		if len(es) != 0 || err == nil || !strings.HasPrefix(err.Error(), "datasets: ") {
			t.Errorf("%s: %d elements, error %v", name, len(es), err)
		}
	}
	if err := nilDS.Iterate(context.Background()).Err(); err != nil {
		t.Errorf("Err before Next: %v", err)
	}
	if _, ok := nilDS.Iterate(context.Background()).Next(); ok {
		t.Error("nil dataset produced an element")
	}
}
