package hdf5

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnsupportedNamed: what the reader does not support fails with the
// dataset's path and what is missing.
func TestUnsupportedNamed(t *testing.T) {
	for file, want := range map[string][]string{
		"unsupported_lzf.h5":      {"hdf5: /w/lzf: ", "unsupported filter 32000"},
		"unsupported_compound.h5": {"hdf5: /w/pairs: ", "compound"},
	} {
		_, err := ReadFile(filepath.Join("testdata", file))
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want it to contain %q", file, err, w)
			}
		}
	}
}
