package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: the cluster as TF_CONFIG's "cluster" or as the whole
// TF_CONFIG writes the CA and every task's files; a second run issues
// with the first one's CA; bad flags are errors.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	cluster := `{"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]}`
	if err := run(dir, cluster, 1, "", ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ca.pem", "ca-key.pem", "chief-0.pem", "chief-0-key.pem", "worker-1.pem", "ps-0-key.pem"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	more := t.TempDir()
	whole := `{"cluster": {"worker": ["w:3"]}, "task": {"type": "worker", "index": 0}}`
	if err := run(more, whole, 1, filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem")); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "ca.pem"))
	b, _ := os.ReadFile(filepath.Join(more, "ca.pem"))
	if string(a) != string(b) {
		t.Error("-ca-cert was not used")
	}
	if _, err := os.Stat(filepath.Join(more, "ca-key.pem")); err == nil {
		t.Error("the CA's key copied next to the task's files")
	}
	for _, c := range []struct{ cluster, want string }{
		{"", "-cluster is required"},
		{"[", "-cluster"},
		{`{"worker": ["no-port"]}`, "no-port"},
	} {
		if err := run(t.TempDir(), c.cluster, 1, "", ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.cluster, err, c.want)
		}
	}
	if err := run(t.TempDir(), cluster, 0, "", ""); err == nil {
		t.Error("-days 0 accepted")
	}
}
