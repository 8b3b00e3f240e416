package distribute_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// FuzzTFConfig feeds arbitrary text to the TF_CONFIG resolver: it must
// return a resolver whose answers are consistent, or a ClusterError naming
// TF_CONFIG; never panic.
func FuzzTFConfig(f *testing.F) {
	for _, s := range []string{
		`{"cluster": {"chief": ["c:2222"], "worker": ["w0:2222", "w1:2222"], "ps": ["p:2222"]}, "task": {"type": "worker", "index": 1}}`,
		`{"cluster": {"worker": {"0": "a:1", "1": "b:1"}}, "task": {"type": "worker", "index": "0"}}`,
		`{"cluster": {"evaluator": ["e:1"], "worker": ["a:1"]}, "task": {"type": "evaluator", "index": 0}}`,
		`{}`,
		`{"cluster": {"chief": ["c:1"], "worker": ["w:1"], "ps": ["p:1", "q:1"]}, "task": {"type": "ps", "index": 1}}`,
		`{"cluster": {"worker": ["a:1", "a:1"]}, "task": {"type": "worker", "index": 0}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := distribute.NewTFConfigClusterResolver(s)
		if err != nil {
			var ce *distribute.ClusterError
			if !errors.As(err, &ce) || ce.Source != "TF_CONFIG" {
				t.Fatalf("%q: error %v is not a TF_CONFIG ClusterError", s, err)
			}
			return
		}
		if r.WorldSize() < 1 || r.Rank() < 0 || r.Rank() >= r.WorldSize() || r.LocalRank() < 0 || r.LocalRank() > r.Rank() {
			t.Fatalf("%q: rank %d of %d, local rank %d", s, r.Rank(), r.WorldSize(), r.LocalRank())
		}
		if r.TaskType() == "ps" {
			if r.IsChief() || r.Rank() != 0 || r.WorldSize() != 1 {
				t.Fatalf("%q: a ps task is rank %d of %d, chief %v", s, r.Rank(), r.WorldSize(), r.IsChief())
			}
			return
		}
		if r.IsChief() != (r.Rank() == 0) {
			t.Fatalf("%q: rank %d, chief %v", s, r.Rank(), r.IsChief())
		}
		if spec := r.ClusterSpec(); spec != nil && r.TaskType() != "evaluator" {
			if n := spec.NumTasks("chief") + spec.NumTasks("worker"); n != r.WorldSize() {
				t.Fatalf("%q: %d chief and worker tasks, world size %d", s, n, r.WorldSize())
			}
			if _, err := spec.TaskAddress(r.TaskType(), r.TaskID()); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
	})
}

// FuzzExpandHostlist: Slurm's hostlist syntax expands to at most
// MaxWorkers non-empty names, or is an error; never a panic or an
// allocation the input did not pay for.
func FuzzExpandHostlist(f *testing.F) {
	for _, s := range []string{"node[01-03,07],gpu5", "r[1-2]n[1-2]-ib", "a,b", "n[1-999999]", "x[", "n[3-1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hosts, err := distribute.ExpandHostlist(s)
		if err != nil {
			return
		}
		if len(hosts) == 0 || len(hosts) > distribute.MaxWorkers {
			t.Fatalf("%q: %d hosts", s, len(hosts))
		}
		for _, h := range hosts {
			if h == "" || strings.ContainsAny(h, "[],") {
				t.Fatalf("%q: host %q", s, h)
			}
		}
	})
}
