package distribution

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

type jaxShardVectors struct {
	Keys   [][]json.RawMessage `json:"keys"`
	Meshes []struct {
		Shape     []int    `json:"shape"`
		AxisNames []string `json:"axis_names"`
		Devices   []string `json:"devices"`
		Variables []struct {
			Path   string     `json:"path"`
			Shape  []int      `json:"shape"`
			Axes   []*string  `json:"axes"`
			Blocks [][][2]int `json:"blocks"`
		} `json:"variables"`
		Data    jaxTensor   `json:"data"`
		Tensors []jaxTensor `json:"tensors"`
	} `json:"meshes"`
}

type jaxTensor struct {
	Shape  []int      `json:"shape"`
	Axes   []*string  `json:"axes"`
	Blocks [][][2]int `json:"blocks"`
	Error  string     `json:"error"`
}

// sameBlocks compares our per-device blocks with JAX's [lo, hi] pairs.
func sameBlocks(got []distribute.Block, want [][][2]int) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d devices, JAX has %d", len(got), len(want))
	}
	for d, b := range got {
		if len(b.Lo) != len(want[d]) {
			return fmt.Errorf("device %d: rank %d, JAX %d", d, len(b.Lo), len(want[d]))
		}
		for k, lh := range want[d] {
			if b.Lo[k] != lh[0] || b.Hi[k] != lh[1] {
				return fmt.Errorf("device %d: block [%v, %v), JAX has %v", d, b.Lo, b.Hi, want[d])
			}
		}
	}
	return nil
}

// TestShardsMatchJAX: for Keras' ModelParallel on JAX with 4 host devices
// (tools/keras_reference/distribution_jax_shards.py), on meshes 1x2, 2x1,
// 2x2, 1x4 and 4x1: the layout the map gives every variable of a small
// Embedding/LayerNormalization/Dense model, the block of it each device
// holds, the blocks of the input batch, and JAX's refusals (more axes
// than dimensions, an indivisible dimension, an axis used twice).
func TestShardsMatchJAX(t *testing.T) {
	var vec jaxShardVectors
	readJSON(t, "testdata/jax_shards.json", &vec)
	if len(vec.Meshes) != 5 {
		t.Fatalf("%d meshes in the vectors, want 5", len(vec.Meshes))
	}
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	for _, vm := range vec.Meshes {
		mesh, err := NewDeviceMesh(vm.Shape, vm.AxisNames, vm.Devices)
		if err != nil {
			t.Fatal(err)
		}
		lm := NewLayoutMap(mesh)
		for _, kv := range vec.Keys {
			var key string
			var axes []*string
			json.Unmarshal(kv[0], &key)
			json.Unmarshal(kv[1], &axes)
			if err := lm.Set(key, axesOf(axes)...); err != nil {
				t.Fatal(err)
			}
		}
		mp, err := NewModelParallel(lm, "batch")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vm.Variables {
			l, err := mp.VariableLayout(v.Path, v.Shape)
			if err != nil {
				t.Fatalf("mesh %v: %s: %v", vm.Shape, v.Path, err)
			}
			if want := axesOf(v.Axes); strings.Join(l.Axes(), ",") != strings.Join(want, ",") {
				t.Errorf("mesh %v: %s: layout %q, Keras %q", vm.Shape, v.Path, l.Axes(), want)
			}
			bs, err := l.Shards(v.Shape)
			if err != nil {
				t.Fatalf("mesh %v: %s: %v", vm.Shape, v.Path, err)
			}
			if err := sameBlocks(bs, v.Blocks); err != nil {
				t.Errorf("mesh %v: %s: %v", vm.Shape, v.Path, err)
			}
		}
		dl := mp.DataLayout(vm.Data.Shape)
		if want := axesOf(vm.Data.Axes); strings.Join(dl.Axes(), ",") != strings.Join(want, ",") {
			t.Errorf("mesh %v: data layout %q, Keras %q", vm.Shape, dl.Axes(), want)
		}
		bs, err := dl.Shards(vm.Data.Shape)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameBlocks(bs, vm.Data.Blocks); err != nil {
			t.Errorf("mesh %v: data: %v", vm.Shape, err)
		}
		for _, tv := range vm.Tensors {
			l, err := NewTensorLayout(axesOf(tv.Axes), mesh)
			if err != nil {
				t.Fatal(err)
			}
			bs, err := l.Shards(tv.Shape)
			if tv.Error != "" {
				if err == nil {
					t.Errorf("mesh %v: shape %v layout %s: no error; JAX: %s", vm.Shape, tv.Shape, l, tv.Error)
				}
				continue
			}
			if err != nil {
				t.Errorf("mesh %v: shape %v layout %s: %v; JAX accepts it", vm.Shape, tv.Shape, l, err)
				continue
			}
			if err := sameBlocks(bs, tv.Blocks); err != nil {
				t.Errorf("mesh %v: shape %v layout %s: %v", vm.Shape, tv.Shape, l, err)
			}
		}
	}
}

// TestBadLayoutsNameTheProblem: the errors of a layout that cannot apply
// say why, with the layout, the shape and the mesh axis.
func TestBadLayoutsNameTheProblem(t *testing.T) {
	mesh := testMesh(t, []int{2, 2})
	for _, c := range []struct {
		axes  []string
		shape []int
		want  string
	}{
		{[]string{"", "model"}, []int{4}, "more than the 1 dimensions"},
		{[]string{"", "model"}, []int{6, 3}, "3 is not divisible by 2"},
		{[]string{"model", "model"}, []int{4, 4}, "same mesh axis"},
	} {
		l, err := NewTensorLayout(c.axes, mesh)
		if err != nil {
			t.Fatal(err)
		}
		err = l.Check(c.shape)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprint(c.shape)) {
			t.Errorf("layout %s on %v: %v, want an error saying %q and naming the shape", l, c.shape, err, c.want)
		}
	}
	if _, err := NewTensorLayout([]string{"data"}, mesh); err == nil || !strings.Contains(err.Error(), `"data"`) {
		t.Errorf("unknown axis: %v", err)
	}
}

// TestUnevenBatchShards: the data layout splits a batch the data axis does
// not divide (JAX refuses it) into parts that differ by one, larger first;
// devices along the model axis get the same rows.
func TestUnevenBatchShards(t *testing.T) {
	mesh := testMesh(t, []int{2, 2})
	lm := NewLayoutMap(mesh)
	mp, err := NewModelParallel(lm, "batch")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := mp.DataShards([]int{7, 5})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 4}, {0, 4}, {4, 7}, {4, 7}}
	for d, b := range bs {
		if b.Lo[0] != want[d][0] || b.Hi[0] != want[d][1] || b.Lo[1] != 0 || b.Hi[1] != 5 {
			t.Errorf("device %d: rows [%d, %d) cols [%d, %d), want rows %v", d, b.Lo[0], b.Hi[0], b.Lo[1], b.Hi[1], want[d])
		}
	}
	if err := mp.DataLayout([]int{7, 5}).Check([]int{7, 5}); err == nil {
		t.Error("the strict check (JAX's) accepted 7 rows on 2 devices")
	}
}

func TestDeviceMeshErrors(t *testing.T) {
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape []int
		names []string
		devs  []string
		want  string
	}{
		{nil, nil, nil, "cannot be empty"},
		{[]int{2}, []string{"a", "b"}, nil, "same size"},
		{[]int{3}, []string{"a"}, []string{"cpu:0", "cpu:1"}, "does not match the number of devices"},
		{[]int{2, 1}, []string{"a", "a"}, []string{"cpu:0", "cpu:1"}, "used twice"},
		{[]int{2}, []string{"a"}, []string{"cpu:0", "/cpu:0"}, "given twice"},
		{[]int{1}, []string{"a"}, []string{"cpu:9"}, "not found"},
	} {
		_, err := NewDeviceMesh(c.shape, c.names, c.devs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDeviceMesh(%v, %q, %q): %v, want %q", c.shape, c.names, c.devs, err, c.want)
		}
	}
	m, err := NewDeviceMesh([]int{2, 2}, []string{"batch", "model"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if m.Index(m.Coords(i)) != i {
			t.Fatalf("Coords/Index do not invert at %d", i)
		}
	}
	if c := m.Coords(2); c[0] != 1 || c[1] != 0 {
		t.Errorf("Coords(2) = %v, want [1 0] (row-major as numpy's reshape)", c)
	}
}
