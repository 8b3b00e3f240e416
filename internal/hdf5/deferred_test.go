package hdf5

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// walkDatasets calls fn for every dataset under g, by path.
func walkDatasets(g *Group, path string, fn func(string, *Dataset)) {
	for _, d := range g.Datasets {
		fn(path+"/"+d.Name, d)
	}
	for _, c := range g.Groups {
		walkDatasets(c, path+"/"+c.Name, fn)
	}
}

// TestDeferredEqualsDecoded: every float dataset of the fixtures (h5py's
// contiguous, chunked, gzip-compressed, never-written, bfloat16, HDF5
// 2.0 layouts), left in the file with DeferBytes 1, reads into float32
// memory exactly as Decode reads it at once; CheckData passes.
func TestDeferredEqualsDecoded(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.h5")
	deferredSeen, direct := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		eager, err := Decode(bytes.NewReader(b), int64(len(b)), Limits{})
		if err != nil {
			continue // the fixtures of unsupported features
		}
		lazy, err := Decode(bytes.NewReader(b), int64(len(b)), Limits{DeferBytes: 1})
		if err != nil {
			t.Fatalf("%s with DeferBytes: %v", f, err)
		}
		want := map[string]*Dataset{}
		walkDatasets(eager, "", func(p string, d *Dataset) { want[p] = d })
		walkDatasets(lazy, "", func(p string, d *Dataset) {
			w := want[p]
			var ref []float32
			switch v := w.Value.(type) {
			case []float32:
				ref = v
			case []float64:
				for _, x := range v {
					ref = append(ref, float32(x))
				}
			default:
				if d.Deferred() {
					t.Errorf("%s%s: deferred, but Decode reads %T", f, p, w.Value)
				}
				return
			}
			if d.Deferred() {
				deferredSeen++
				if d.src.direct() {
					direct++
				}
				if d.Value != nil {
					t.Errorf("%s%s: deferred with a Value", f, p)
				}
			}
			if err := d.CheckData(); err != nil {
				t.Errorf("%s%s: CheckData: %v", f, p, err)
			}
			got := make([]float32, d.Len())
			if err := d.ReadFloat32s(got); err != nil {
				t.Fatalf("%s%s: %v", f, p, err)
			}
			if len(got) != len(ref) {
				t.Fatalf("%s%s: %d values, Decode %d", f, p, len(got), len(ref))
			}
			for i := range got {
				if got[i] != ref[i] && !(got[i] != got[i] && ref[i] != ref[i]) {
					t.Fatalf("%s%s[%d] = %v, Decode %v", f, p, i, got[i], ref[i])
				}
			}
			if err := d.ReadFloat32s(make([]float32, len(got)+1)); err == nil {
				t.Errorf("%s%s: ReadFloat32s into a slice of the wrong length: no error", f, p)
			}
		})
	}
	if deferredSeen < 10 || direct == 0 || direct == deferredSeen {
		t.Errorf("%d datasets deferred, %d of them read directly: the fixtures should exercise both routes", deferredSeen, direct)
	}
}

// TestDeferredTruncatedFileRefused: contiguous data past the end of a
// truncated file is refused when the file is decoded, not when it is
// read, so that nothing is assigned from a file that cannot be read.
func TestDeferredTruncatedFileRefused(t *testing.T) {
	b, err := os.ReadFile("testdata/keras3_weights.h5")
	if err != nil {
		t.Fatal(err)
	}
	refused := false
	for cut := len(b) - 1; cut > len(b)/2 && !refused; cut -= 64 {
		_, err := Decode(bytes.NewReader(b[:cut]), int64(cut), Limits{DeferBytes: 1})
		if err != nil && strings.Contains(err.Error(), "beyond the end of the file") {
			refused = true
		}
	}
	if !refused {
		t.Error("no truncation of the file was refused for data beyond its end")
	}
}
