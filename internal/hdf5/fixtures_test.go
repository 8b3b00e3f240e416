package hdf5

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// manifest is what h5py read back from each fixture
// (tools/keras_reference/h5_fixtures.py).
type manifest struct {
	H5py  string               `json:"h5py"`
	HDF5  string               `json:"hdf5"`
	Files map[string][]mObject `json:"files"`
}

type mObject struct {
	Path     string   `json:"path"`
	Kind     string   `json:"kind"`
	Children []string `json:"children"`
	Shape    []int    `json:"shape"`
	Dtype    string   `json:"dtype"`

	RawValue []interface{} `json:"value"`
	Attrs    []mAttr       `json:"attrs"`
}

type mAttr struct {
	Name  string        `json:"name"`
	Shape []int         `json:"shape"`
	Dtype string        `json:"dtype"`
	Value []interface{} `json:"value"`
}

func loadManifest(t *testing.T, path string) manifest {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	var m manifest
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestH5pyFixtures reads every file h5py wrote and compares each group's
// children, each dataset and each attribute with what h5py read.
func TestH5pyFixtures(t *testing.T) {
	m := loadManifest(t, filepath.Join("testdata", "manifest.json"))
	if len(m.Files) < 5 {
		t.Fatalf("manifest lists %d files", len(m.Files))
	}
	for name, objs := range m.Files {
		t.Run(name, func(t *testing.T) {
			root, err := ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			checkObjects(t, root, objs)
		})
	}
}

func checkObjects(t *testing.T, root *Group, objs []mObject) {
	t.Helper()
	for _, o := range objs {
		g, d, err := root.Lookup(o.Path)
		if err != nil {
			t.Errorf("%s: %v", o.Path, err)
			continue
		}
		switch o.Kind {
		case "group":
			if g == nil {
				t.Errorf("%s: not a group", o.Path)
				continue
			}
			var wantG, wantD, gotG, gotD []string
			for _, c := range o.Children {
				if g.Group(c) != nil {
					wantG = append(wantG, c)
				} else {
					wantD = append(wantD, c)
				}
			}
			for _, c := range g.Groups {
				gotG = append(gotG, c.Name)
			}
			for _, c := range g.Datasets {
				gotD = append(gotD, c.Name)
			}
			if !reflect.DeepEqual(gotG, wantG) || !reflect.DeepEqual(gotD, wantD) {
				t.Errorf("%s: children groups %v datasets %v, h5py lists %v", o.Path, gotG, gotD, o.Children)
			}
			checkMAttrs(t, o.Path, g.Attrs, o.Attrs)
		case "dataset":
			if d == nil {
				t.Errorf("%s: not a dataset", o.Path)
				continue
			}
			if err := sameValue(d.Shape, d.Value, d.FixedStrings, o.Shape, o.Dtype, o.RawValue); err != nil {
				t.Errorf("%s: %v", o.Path, err)
			}
			checkMAttrs(t, o.Path, d.Attrs, o.Attrs)
		}
	}
}

func checkMAttrs(t *testing.T, path string, got []Attr, want []mAttr) {
	t.Helper()
	var gn, wn []string
	for _, a := range got {
		gn = append(gn, a.Name)
	}
	for _, a := range want {
		wn = append(wn, a.Name)
	}
	if !reflect.DeepEqual(gn, wn) {
		t.Errorf("%s: attributes %v, h5py lists %v", path, gn, wn)
		return
	}
	for i, a := range want {
		g := got[i]
		if err := sameValue(g.Shape, g.Value, g.FixedStrings, a.Shape, a.Dtype, a.Value); err != nil {
			t.Errorf("%s: attribute %s: %v", path, a.Name, err)
		}
	}
}

// sameValue compares a decoded value with h5py's (numbers exactly, as
// JSON numbers; strings and bools as such).
func sameValue(shape []int, v any, fixed bool, wantShape []int, dtype string, want []interface{}) error {
	if len(shape) != len(wantShape) || (len(shape) > 0 && !reflect.DeepEqual(shape, wantShape)) {
		return fmt.Errorf("shape %v, h5py %v", shape, wantShape)
	}
	goType := map[string]string{"int8": "[]int8", "int16": "[]int16", "int32": "[]int32", "int64": "[]int64",
		"uint8": "[]uint8", "uint16": "[]uint16", "uint32": "[]uint32", "uint64": "[]uint64",
		"float16": "[]float32", "bfloat16": "[]float32", "float32": "[]float32", "float64": "[]float64",
		"str": "[]string", "bytes": "[]string", "bool": "[]bool"}[dtype]
	if got := fmt.Sprintf("%T", v); got != goType {
		return fmt.Errorf("value type %s for h5py dtype %s", got, dtype)
	}
	if fixed != (dtype == "bytes") {
		return fmt.Errorf("FixedStrings=%v for h5py dtype %s", fixed, dtype)
	}
	rv := reflect.ValueOf(v)
	if rv.Len() != len(want) {
		return fmt.Errorf("%d elements, h5py %d", rv.Len(), len(want))
	}
	for i, w := range want {
		e := rv.Index(i).Interface()
		ok := false
		switch x := e.(type) {
		case string:
			ok = x == w
		case bool:
			ok = x == w
		case float32, float64:
			f, _ := strconv.ParseFloat(string(w.(json.Number)), 64)
			ok = reflect.ValueOf(x).Float() == f
		default:
			ok = fmt.Sprint(x) == string(w.(json.Number))
		}
		if !ok {
			return fmt.Errorf("element %d is %v, h5py %v", i, e, w)
		}
	}
	return nil
}
