package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/mpi/mpirun"
	"github.com/gokeras/gokeras/internal/racetest"
)

// TestNetCluster runs the example on tools/netcluster.sh's simulated
// network (2 workers in network namespaces, 1 Gbit/s links, OpenMPI over
// TCP between them, each on its own core), with and without overlapping
// the all-reduce: both end at the same test accuracy (bitwise the same
// weights), the profile line says where the time went, and the script
// leaves no namespace behind. It skips where namespaces cannot be made
// (not root, no iproute2 or tc).
func TestNetCluster(t *testing.T) {
	racetest.Skip(t, "it runs a go build of the example without -race, which the detector does not see into")
	mpirun.Require(t)
	script, err := filepath.Abs("../../tools/netcluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(script, "-check").CombinedOutput(); err != nil {
		t.Skipf("cannot make a simulated cluster network here: %s", strings.TrimSpace(string(out)))
	}
	// The namespaces by name (ip netns list prints "name (id: N)").
	namespaces := func() map[string]bool {
		out, _ := exec.Command("ip", "netns", "list").Output()
		set := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				set[f[0]] = true
			}
		}
		return set
	}
	before := namespaces()
	dir := t.TempDir()
	writeMNIST(t, dir, 1000, 100)
	bin := filepath.Join(dir, "multi_worker")
	if out, err := exec.Command("go", "build", "-tags", "mpi", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, out)
	}
	acc := regexp.MustCompile(`test_accuracy: ([0-9.]+)`)
	prof := regexp.MustCompile(`profile: [0-9.]+ ms per step; gradient all-reduce [0-9.]+ ms per step (overlapped with|after) the backward pass, [0-9.]+ ms of it not hidden: communication [0-9.]+% of a step`)
	var accs []string
	for _, mode := range []string{"-no-overlap=false", "-no-overlap=true"} {
		start := time.Now()
		cmd := exec.Command(script, "-n", "2", "-rate", "1gbit", "-delay", "1ms", "-timeout", "180", "--",
			bin, "-dataset", "mnist", "-data", dir, "-epochs", "1", "-steps-per-epoch", "6", "-seed", "1",
			"-learning-rate", "0.05", "-verbose", "0", "-profile", mode)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		s := string(out)
		if !strings.Contains(s, "Workers: 2, replicas in sync: 2") {
			t.Fatalf("%s: not 2 workers:\n%s", mode, s)
		}
		p := prof.FindStringSubmatch(s)
		if p == nil {
			t.Fatalf("%s: no profile line:\n%s", mode, s)
		}
		if want := map[string]string{"-no-overlap=false": "overlapped with", "-no-overlap=true": "after"}[mode]; p[1] != want {
			t.Errorf("%s: profile says %q", mode, p[0])
		}
		a := acc.FindStringSubmatch(s)
		if a == nil {
			t.Fatalf("%s: no test accuracy:\n%s", mode, s)
		}
		accs = append(accs, a[1])
		t.Logf("%s (%v): %s; test_accuracy %s", mode, time.Since(start).Round(time.Millisecond), p[0], a[1])
	}
	if accs[0] != accs[1] {
		t.Errorf("test accuracy %s overlapped, %s not: the weights differ", accs[0], accs[1])
	}
	// Only namespaces that are new count: another run's (a concurrent
	// script cleaning up its own) may go away meanwhile.
	var left []string
	for ns := range namespaces() {
		if !before[ns] {
			left = append(left, ns)
		}
	}
	if len(left) > 0 {
		t.Errorf("network namespaces left behind: %v", left)
	}
}
