package hdf5

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// sampleTree is a tree with every value type, ranks 0 to 4, empty groups
// and values, fixed and variable-length strings, and children given out
// of name order.
func sampleTree(seed int64) *Group {
	rng := rand.New(rand.NewSource(seed))
	shapes := [][]int{nil, {3}, {2, 3}, {2, 1, 3}, {2, 2, 1, 3}, {0}, {4, 0}}
	n := func(s []int) int {
		p := 1
		for _, d := range s {
			p *= d
		}
		return p
	}
	value := func(kind int, k int) any {
		switch kind {
		case 0:
			v := make([]float32, k)
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
			if k > 1 {
				v[0] = float32(math.Inf(-1))
			}
			return v
		case 1:
			v := make([]float64, k)
			for i := range v {
				v[i] = rng.NormFloat64() * 1e10
			}
			return v
		case 2:
			v := make([]int8, k)
			for i := range v {
				v[i] = int8(rng.Intn(256) - 128)
			}
			return v
		case 3:
			v := make([]int16, k)
			for i := range v {
				v[i] = int16(rng.Intn(1<<16) - 1<<15)
			}
			return v
		case 4:
			v := make([]int32, k)
			for i := range v {
				v[i] = int32(rng.Uint32())
			}
			return v
		case 5:
			v := make([]int64, k)
			for i := range v {
				v[i] = int64(rng.Uint64())
			}
			return v
		case 6:
			v := make([]uint8, k)
			rng.Read(v)
			return v
		case 7:
			v := make([]uint16, k)
			for i := range v {
				v[i] = uint16(rng.Uint32())
			}
			return v
		case 8:
			v := make([]uint32, k)
			for i := range v {
				v[i] = rng.Uint32()
			}
			return v
		case 9:
			v := make([]uint64, k)
			for i := range v {
				v[i] = rng.Uint64()
			}
			return v
		case 10, 11:
			v := make([]string, k)
			for i := range v {
				v[i] = strings.Repeat(string(rune('a'+rng.Intn(26))), rng.Intn(5))
				if kind == 10 && i%3 == 1 {
					v[i] += "é€"
				}
			}
			return v
		default:
			v := make([]bool, k)
			for i := range v {
				v[i] = rng.Intn(2) == 1
			}
			return v
		}
	}
	root := &Group{Attrs: []Attr{
		{Name: "keras_version", Value: []string{"3.15.1"}},
		{Name: "layer_names", Shape: []int{3}, Value: []string{"dense", "dense_1", "x"}, FixedStrings: true},
	}}
	for kind := 0; kind <= 12; kind++ {
		g := &Group{Name: fmt.Sprintf("k%02d_%d", 20-kind, kind)}
		for i, s := range shapes {
			d := &Dataset{Name: fmt.Sprintf("d%d", len(shapes)-i), Shape: s, Value: value(kind, n(s)), FixedStrings: kind == 11}
			d.Attrs = append(d.Attrs, Attr{Name: "a", Shape: s, Value: value(kind, n(s)), FixedStrings: kind == 11})
			g.Datasets = append(g.Datasets, d)
		}
		g.Attrs = append(g.Attrs, Attr{Name: "scalar", Value: value(kind, 1), FixedStrings: kind == 11})
		root.Groups = append(root.Groups, g)
	}
	root.Groups = append(root.Groups, &Group{Name: "empty"}, &Group{Name: "a", Groups: []*Group{{Name: "b", Groups: []*Group{{Name: "c"}}}}},
		&Group{Name: "ünïcödé ✓", Attrs: []Attr{{Name: "ätt €", Value: []string{"ü"}}}})
	return root
}

// normalize gives a tree the form Decode returns: attributes in name
// order, shapes spelled out, the root named "/".
func normalize(g *Group) *Group {
	out := &Group{Name: g.Name, Attrs: normAttrs(g.Attrs)}
	for _, c := range g.Groups {
		out.Groups = append(out.Groups, normalize(c))
	}
	for _, d := range g.Datasets {
		n, _ := valueLen(d.Value)
		s, _ := shapeOf(d.Shape, n)
		fixed := d.FixedStrings
		if _, ok := d.Value.([]string); !ok {
			fixed = false
		}
		out.Datasets = append(out.Datasets, &Dataset{Name: d.Name, Shape: s, Value: d.Value, Attrs: normAttrs(d.Attrs), FixedStrings: fixed})
	}
	return out
}

func normAttrs(as []Attr) []Attr {
	var out []Attr
	for _, a := range as {
		n, _ := valueLen(a.Value)
		a.Shape, _ = shapeOf(a.Shape, n)
		if _, ok := a.Value.([]string); !ok {
			a.FixedStrings = false
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func TestRoundTrip(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		tree := sampleTree(seed)
		var b bytes.Buffer
		if err := Encode(&b, tree); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(bytes.NewReader(b.Bytes()), int64(b.Len()), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		want := normalize(tree)
		want.Name = "/"
		if !reflect.DeepEqual(got, want) {
			diffTrees(t, "", got, want)
		}
	}
}

// diffTrees reports the first differences between two trees.
func diffTrees(t *testing.T, path string, got, want *Group) {
	t.Helper()
	if !reflect.DeepEqual(got.Attrs, want.Attrs) {
		t.Errorf("%s attrs:\n got %+v\nwant %+v", path, got.Attrs, want.Attrs)
	}
	if len(got.Groups) != len(want.Groups) || len(got.Datasets) != len(want.Datasets) {
		t.Errorf("%s: %d groups %d datasets, want %d %d", path, len(got.Groups), len(got.Datasets), len(want.Groups), len(want.Datasets))
		return
	}
	for i := range got.Groups {
		diffTrees(t, path+"/"+want.Groups[i].Name, got.Groups[i], want.Groups[i])
	}
	for i := range got.Datasets {
		if !reflect.DeepEqual(got.Datasets[i], want.Datasets[i]) {
			t.Errorf("%s/%s:\n got %+v\nwant %+v", path, want.Datasets[i].Name, got.Datasets[i], want.Datasets[i])
		}
	}
}

// TestWriteFileKeepsOldOnFailure checks that a failed WriteFile leaves the
// previous file and no temporary file behind.
func TestWriteFileKeepsOldOnFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.weights.h5")
	if err := WriteFile(p, sampleTree(1)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	bad := &Group{Datasets: []*Dataset{{Name: "x", Value: []float32{1}}, {Name: "x", Value: []float32{2}}}}
	err := WriteFile(p, bad)
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate names: error %v", err)
	}
	after, _ := os.ReadFile(p)
	if !bytes.Equal(before, after) {
		t.Error("failed write changed the file")
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("directory holds %d entries after a failed write", len(es))
	}
}

func TestEncodeRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		g    *Group
		want string
	}{
		{&Group{Datasets: []*Dataset{{Name: "x", Shape: []int{2, 2}, Value: []float32{1}}}}, "/x: shape [2 2] holds 4 elements, value has 1"},
		{&Group{Datasets: []*Dataset{{Name: "x", Value: []complex64{1}}}}, "unsupported value type"},
		{&Group{Groups: []*Group{{Name: "a/b"}}}, "contains"},
		{&Group{Attrs: []Attr{{Name: "n", Value: nil}}}, `attribute "n": value is nil`},
		{&Group{Attrs: []Attr{{Name: "big", Value: make([]float64, 9000)}}}, "64 KiB"},
	} {
		err := Encode(&bytes.Buffer{}, c.g)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
}
