package hdf5

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksRefused checks that soft and external links fail with an error
// naming the link and its target, as Keras refuses them.
func TestLinksRefused(t *testing.T) {
	for _, c := range []struct{ file, want []string }{
		{[]string{"soft_link.h5"}, []string{"/w/alias", "soft link", "/real"}},
		{[]string{"soft_link_new.h5"}, []string{"/w/alias", "soft link", "/real"}},
		{[]string{"external_link.h5"}, []string{"/w/outside", "external link", "other.h5", "/data"}},
	} {
		_, err := ReadFile(filepath.Join("testdata", c.file[0]))
		if err == nil {
			t.Errorf("%s: no error", c.file[0])
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.file[0], err, w)
			}
		}
	}
}
