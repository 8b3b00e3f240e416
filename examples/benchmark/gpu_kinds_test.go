package main

import (
	"slices"
	"testing"
)

func TestParseGraphs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []bool
		bad  bool
	}{
		{"on", []bool{true}, false},
		{"off,on", []bool{false, true}, false},
		{" on , off ", []bool{true, false}, false},
		{"on,", nil, true},
		{"yes", nil, true},
	} {
		got, err := parseGraphs(c.in)
		if (err != nil) != c.bad || !c.bad && !slices.Equal(got, c.want) {
			t.Errorf("parseGraphs(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
}
