package distribution

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// axesOf turns JSON axes (null for None) into ours ("" for None).
func axesOf(raw []*string) []string {
	out := make([]string, len(raw))
	for i, a := range raw {
		if a != nil {
			out[i] = *a
		}
	}
	return out
}

type layoutMapVectors struct {
	Cases []struct {
		Keys    [][]json.RawMessage `json:"keys"`
		Lookups []struct {
			Path  string     `json:"path"`
			Axes  *[]*string `json:"axes"`
			Error string     `json:"error"`
		} `json:"lookups"`
	} `json:"cases"`
	SetErrors []struct {
		Key       string    `json:"key"`
		Axes      []*string `json:"axes"`
		Duplicate bool      `json:"duplicate"`
		OK        bool      `json:"ok"`
	} `json:"set_errors"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestLayoutMapMatchesKeras looks up every path of Keras' own vectors
// (tools/keras_reference/distribution_vectors.py) in a LayoutMap with the
// same keys, in the same order: the same layout, None, or an error where
// Keras raises that several keys match.
func TestLayoutMapMatchesKeras(t *testing.T) {
	var vec layoutMapVectors
	readJSON(t, "testdata/layout_map.json", &vec)
	if len(vec.Cases) == 0 {
		t.Fatal("no cases in the vectors")
	}
	lookups := 0
	for ci, c := range vec.Cases {
		lm := NewLayoutMap(nil)
		for _, kv := range c.Keys {
			var key string
			var axes []*string
			if err := json.Unmarshal(kv[0], &key); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(kv[1], &axes); err != nil {
				t.Fatal(err)
			}
			if err := lm.Set(key, axesOf(axes)...); err != nil {
				t.Fatalf("case %d: Set(%q): %v", ci, key, err)
			}
		}
		for _, q := range c.Lookups {
			lookups++
			got, err := lm.Get(q.Path)
			switch {
			case q.Error != "":
				if err == nil || !strings.Contains(err.Error(), "matches multiple layout specification keys") {
					t.Errorf("case %d: Get(%q) = %v, %v; Keras raised %q", ci, q.Path, got, err, q.Error)
				}
			case err != nil:
				t.Errorf("case %d: Get(%q): %v; Keras found %v", ci, q.Path, err, q.Axes)
			case q.Axes == nil:
				if got != nil {
					t.Errorf("case %d: Get(%q) = %s; Keras found no layout", ci, q.Path, got)
				}
			case got == nil:
				t.Errorf("case %d: Get(%q) = nil; Keras found %q", ci, q.Path, axesOf(*q.Axes))
			default:
				want := axesOf(*q.Axes)
				if strings.Join(got.Axes(), ",") != strings.Join(want, ",") || len(got.Axes()) != len(want) {
					t.Errorf("case %d: Get(%q) = %q; Keras found %q", ci, q.Path, got.Axes(), want)
				}
			}
		}
	}
	if lookups < 20 {
		t.Fatalf("only %d lookups in the vectors", lookups)
	}
}

func testMesh(t *testing.T, shape []int) *DeviceMesh {
	t.Helper()
	n := 1
	for _, d := range shape {
		n *= d
	}
	if err := distribute.SetLogicalCPUs(max(n, 4)); err != nil {
		t.Fatal(err)
	}
	devs := make([]string, n)
	for i := range devs {
		devs[i] = fmt.Sprintf("cpu:%d", i)
	}
	m, err := NewDeviceMesh(shape, []string{"batch", "model"}[:len(shape)], devs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLayoutMapSetErrorsAsKeras: an axis the mesh lacks and a key stored
// twice are errors, as Keras raises them; a valid layout is stored.
func TestLayoutMapSetErrorsAsKeras(t *testing.T) {
	var vec layoutMapVectors
	readJSON(t, "testdata/layout_map.json", &vec)
	for _, c := range vec.SetErrors {
		lm := NewLayoutMap(testMesh(t, []int{2, 2}))
		if c.Duplicate {
			if err := lm.Set(c.Key, axesOf(c.Axes)...); err != nil {
				t.Fatal(err)
			}
		}
		err := lm.Set(c.Key, axesOf(c.Axes)...)
		if (err == nil) != c.OK {
			t.Errorf("Set(%q, %q) (duplicate %v): error %v; Keras ok=%v", c.Key, axesOf(c.Axes), c.Duplicate, err, c.OK)
		}
	}
}

func TestLayoutMapRefusesWhatGoCannotRead(t *testing.T) {
	lm := NewLayoutMap(nil)
	err := lm.Set("(?!dense).*kernel", "", "model") // a Python look-ahead
	if err == nil || !strings.Contains(err.Error(), "(?!dense).*kernel") {
		t.Fatalf("look-ahead key: %v, want an error naming the key", err)
	}
	if lm.Len() != 0 {
		t.Fatalf("a refused key was stored: %q", lm.Keys())
	}
	if err := lm.Set(".*kernel", "", "model"); err != nil {
		t.Fatal(err)
	}
	if !lm.Delete(".*kernel") || lm.Len() != 0 || lm.Delete(".*kernel") {
		t.Fatal("Delete does not remove the key once")
	}
}
