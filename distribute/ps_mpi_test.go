package distribute

import (
	"strings"
	"testing"
)

// TestPSMPIRoles: rank 0 is the chief, then the servers, then the
// workers; too few ranks is an error naming the -np needed.
func TestPSMPIRoles(t *testing.T) {
	want := []struct {
		typ string
		id  int
	}{{"chief", 0}, {"ps", 0}, {"ps", 1}, {"worker", 0}, {"worker", 1}}
	for r, w := range want {
		typ, id, err := psRole(r, 5, 2)
		if err != nil || typ != w.typ || id != w.id {
			t.Errorf("rank %d: %s %d (%v), want %s %d", r, typ, id, err, w.typ, w.id)
		}
	}
	if _, _, err := psRole(0, 3, 2); err == nil || !strings.Contains(err.Error(), "-np 4") {
		t.Errorf("3 ranks for 2 servers: %v", err)
	}
	spec := psSpecOf([]string{"c:1", "p:1", "p:2", "w:1", "w:2"}, 2)
	if spec.NumTasks("ps") != 2 || spec["worker"][1] != "w:2" || spec["chief"][0] != "c:1" {
		t.Errorf("spec %v", spec)
	}
	for _, a := range []string{"node-17.cluster.local:41234", "", "[::1]:80"} {
		w, err := packAddr(a)
		if err != nil {
			t.Fatal(err)
		}
		if got := unpackAddr(w); got != a {
			t.Errorf("%q came back as %q", a, got)
		}
	}
	if _, err := packAddr(strings.Repeat("x", 300)); err == nil {
		t.Error("a 300-byte address was packed")
	}
}
