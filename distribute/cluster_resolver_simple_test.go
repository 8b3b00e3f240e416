package distribute_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// SimpleClusterResolver numbers a cluster as TF_CONFIG does, and refuses
// what TF_CONFIG refuses, naming itself.
func TestSimpleClusterResolver(t *testing.T) {
	spec := distribute.ClusterSpec{"chief": {"127.0.0.1:2222"}, "worker": {"127.0.0.1:2223", "127.0.0.1:2224"}}
	r, err := distribute.NewSimpleClusterResolver(spec, "worker", 1)
	if err != nil {
		t.Fatal(err)
	}
	tf, err := distribute.NewTFConfigClusterResolver(`{"cluster": {"chief": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]}, "task": {"type": "worker", "index": 1}}`)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rank() != tf.Rank() || r.WorldSize() != tf.WorldSize() || r.IsChief() != tf.IsChief() || r.Rank() != 2 {
		t.Errorf("SimpleClusterResolver rank %d of %d chief %v; TF_CONFIG %d of %d chief %v", r.Rank(), r.WorldSize(), r.IsChief(), tf.Rank(), tf.WorldSize(), tf.IsChief())
	}
	if r.Name() != "SimpleClusterResolver" {
		t.Errorf("Name %q", r.Name())
	}
	for _, bad := range []struct {
		spec distribute.ClusterSpec
		typ  string
		id   int
	}{
		{nil, "worker", 0},
		{spec, "worker", 2},
		{spec, "master", 0},
		{distribute.ClusterSpec{"worker": {"127.0.0.1"}}, "worker", 0},
	} {
		if _, err := distribute.NewSimpleClusterResolver(bad.spec, bad.typ, bad.id); err == nil || !strings.Contains(err.Error(), "SimpleClusterResolver") {
			t.Errorf("%v %s %d: %v", bad.spec, bad.typ, bad.id, err)
		}
	}
}

// A SimpleClusterResolver is what MultiWorkerMirroredStrategy takes, as
// tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver): a
// one-worker cluster given in code trains on the worker's replicas.
func TestSimpleClusterResolverStrategy(t *testing.T) {
	r, err := distribute.NewSimpleClusterResolver(distribute.ClusterSpec{"worker": {"127.0.0.1:2222"}}, "worker", 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.Resolver(r))
	if err != nil {
		t.Fatal(err)
	}
	if s.ClusterResolver() != r || s.NumReplicasInSync() < 1 {
		t.Errorf("strategy resolver %v, %d replicas", s.ClusterResolver(), s.NumReplicasInSync())
	}
	if err := s.ExperimentalBarrier(); err != nil {
		t.Error(err)
	}
}
