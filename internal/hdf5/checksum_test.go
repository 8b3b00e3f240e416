package hdf5

import "testing"

// TestLookup3 checks the checksum against the test vectors published with
// Bob Jenkins' lookup3.c (hashlittle with initval 0) and the empty input.
func TestLookup3(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
	}{
		{"", 0xdeadbeef},
		{"Four score and seven years ago", 0x17770551},
	} {
		if got := lookup3([]byte(c.in)); got != c.want {
			t.Errorf("lookup3(%q) = %#08x, want %#08x", c.in, got, c.want)
		}
	}
}
