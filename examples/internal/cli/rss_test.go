package cli

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func TestParseVmHWM(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1536 kB\nVmRSS:\t 1000 kB\n", 1536 << 10, true},
		{"VmHWM: 12 MB\n", 0, false},
		{"VmHWM: x kB\n", 0, false},
		{"Name: x\n", 0, false},
	} {
		got, ok := parseVmHWM(strings.NewReader(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d %v, want %d %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	b, ok := PeakRSS()
	if !ok || b < 1<<20 || b > 1<<40 {
		t.Fatalf("PeakRSS = %d, %v", b, ok)
	}
	var w bytes.Buffer
	PrintPeakRSS(&w)
	if !strings.HasPrefix(w.String(), "peak RSS: ") || !strings.HasSuffix(w.String(), " MB\n") {
		t.Errorf("PrintPeakRSS wrote %q", w.String())
	}
}
