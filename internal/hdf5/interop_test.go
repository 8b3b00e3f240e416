package hdf5

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"
)

// TestWriteForH5py writes files for tools/keras_reference/h5_check.py,
// which reads them with h5py and compares them with the manifest.json
// written here. It runs only when GOKERAS_H5_OUT names a directory:
//
//	GOKERAS_H5_OUT=/tmp/h5out go test ./internal/hdf5/ -run WriteForH5py
//	python tools/keras_reference/h5_check.py /tmp/h5out
func TestWriteForH5py(t *testing.T) {
	dir := os.Getenv("GOKERAS_H5_OUT")
	if dir == "" {
		t.Skip("GOKERAS_H5_OUT not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]*Group{
		"sample.h5":        sampleTree(7),
		"model.weights.h5": keras3Tree(),
		"legacy_model.h5":  keras2Tree(),
		"wide.h5":          wideTree(),
	}
	manifest := map[string]any{}
	for name, g := range files {
		if err := WriteFile(filepath.Join(dir, name), g); err != nil {
			t.Fatal(err)
		}
		manifest[name] = describeTree(g)
	}
	b, err := json.Marshal(map[string]any{"files": manifest})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wideTree has a group of 300 compact links (HDF5 itself would have
// moved them to dense storage) and a 1 MiB dataset.
func wideTree() *Group {
	g := &Group{Name: "wide"}
	for i := 0; i < 300; i++ {
		g.Datasets = append(g.Datasets, &Dataset{Name: fmt.Sprintf("w%03d", 299-i), Value: []int16{int16(i)}})
	}
	big := make([]float64, 1<<17)
	for i := range big {
		big[i] = math.Sqrt(float64(i))
	}
	return &Group{Groups: []*Group{g}, Datasets: []*Dataset{{Name: "big", Shape: []int{256, 512}, Value: big}}}
}

// keras3Tree is a model.weights.h5 as Keras 3's H5IOStore lays it out.
func keras3Tree() *Group {
	vars := func(vs ...*Dataset) *Group { return &Group{Name: "vars", Datasets: vs} }
	return &Group{Groups: []*Group{
		{Name: "layers", Groups: []*Group{
			{Name: "dense", Groups: []*Group{vars(
				&Dataset{Name: "0", Shape: []int{4, 3}, Value: seq32(12)},
				&Dataset{Name: "1", Shape: []int{3}, Value: seq32(3)})}},
			{Name: "dropout"},
		}},
		{Name: "optimizer", Groups: []*Group{vars(&Dataset{Name: "0", Value: []int64{7}})}},
		{Name: "vars"},
	}}
}

// keras2Tree is a legacy Keras 2 .h5 model file.
func keras2Tree() *Group {
	return &Group{
		Attrs: []Attr{
			{Name: "backend", Value: []string{"tensorflow"}},
			{Name: "keras_version", Value: []string{"2.15.0"}},
			{Name: "model_config", Value: []string{`{"class_name": "Sequential", "config": {"layers": []}}`}},
		},
		Groups: []*Group{{Name: "model_weights",
			Attrs: []Attr{{Name: "layer_names", Shape: []int{2}, Value: []string{"dense", "flatten"}, FixedStrings: true}},
			Groups: []*Group{
				{Name: "dense",
					Attrs: []Attr{{Name: "weight_names", Shape: []int{2}, Value: []string{"dense/kernel:0", "dense/bias:0"}, FixedStrings: true}},
					Groups: []*Group{{Name: "dense", Datasets: []*Dataset{
						{Name: "kernel:0", Shape: []int{2, 3}, Value: seq32(6)},
						{Name: "bias:0", Shape: []int{3}, Value: seq32(3)}}}}},
				{Name: "flatten", Attrs: []Attr{{Name: "weight_names", Shape: []int{0}, Value: []string{}, FixedStrings: true}}},
			}}},
	}
}

func seq32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)*0.25 - 1
	}
	return v
}

// describeTree is the manifest entry h5_check.py compares with what h5py
// reads: objects depth-first with children in creation order and
// attributes in name order (h5py's iteration orders).
func describeTree(root *Group) []map[string]any {
	var out []map[string]any
	var walk func(g *Group, path string)
	walk = func(g *Group, path string) {
		var kids []string
		for _, c := range g.Groups {
			kids = append(kids, c.Name)
		}
		for _, d := range g.Datasets {
			kids = append(kids, d.Name)
		}
		out = append(out, map[string]any{"path": path, "kind": "group", "children": orEmpty(kids), "attrs": describeAttrs(g.Attrs)})
		for _, c := range g.Groups {
			walk(c, joinPath(path, c.Name))
		}
		for _, d := range g.Datasets {
			n, _ := valueLen(d.Value)
			s, _ := shapeOf(d.Shape, n)
			out = append(out, map[string]any{"path": joinPath(path, d.Name), "kind": "dataset",
				"shape": orEmptyInt(s), "dtype": dtypeName(d.Value, d.FixedStrings), "value": jsonValues(d.Value),
				"attrs": describeAttrs(d.Attrs)})
		}
	}
	walk(root, "/")
	return out
}

func describeAttrs(as []Attr) []map[string]any {
	as = append([]Attr(nil), as...)
	sort.Slice(as, func(i, j int) bool { return as[i].Name < as[j].Name })
	out := []map[string]any{}
	for _, a := range as {
		n, _ := valueLen(a.Value)
		s, _ := shapeOf(a.Shape, n)
		out = append(out, map[string]any{"name": a.Name, "shape": orEmptyInt(s),
			"dtype": dtypeName(a.Value, a.FixedStrings), "value": jsonValues(a.Value)})
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyInt(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func dtypeName(v any, fixed bool) string {
	switch v.(type) {
	case []string:
		if fixed {
			return "bytes"
		}
		return "str"
	case []bool:
		return "bool"
	}
	return reflect.TypeOf(v).Elem().Kind().String()
}

// jsonValues spells numbers exactly (non-finite floats as strings).
func jsonValues(v any) []any {
	rv := reflect.ValueOf(v)
	out := make([]any, rv.Len())
	for i := range out {
		switch x := rv.Index(i).Interface().(type) {
		case float32:
			out[i] = jsonFloat(float64(x))
		case float64:
			out[i] = jsonFloat(x)
		case string, bool:
			out[i] = x
		default:
			out[i] = json.Number(fmt.Sprint(x))
		}
	}
	return out
}

func jsonFloat(f float64) any {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}
