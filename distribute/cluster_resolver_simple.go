package distribute

import (
	"encoding/json"
	"errors"
	"strings"
)

// NewSimpleClusterResolver is tf.distribute.cluster_resolver.SimpleClusterResolver:
// a resolver of a cluster spec given in code, for this process's task
// (taskType "chief", "worker", "ps" or "evaluator", and its index). It
// checks and numbers the cluster exactly as a TF_CONFIG of the same
// cluster and task ([NewTFConfigClusterResolver]); errors name
// SimpleClusterResolver.
func NewSimpleClusterResolver(spec ClusterSpec, taskType string, taskID int) (ClusterResolver, error) {
	if len(spec) == 0 {
		return nil, errors.New("distribute: SimpleClusterResolver: empty cluster spec")
	}
	cfg := map[string]any{"cluster": spec, "task": map[string]any{"type": taskType, "index": taskID}}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	r, err := NewTFConfigClusterResolver(string(b))
	if err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "TF_CONFIG", "SimpleClusterResolver", 1))
	}
	if rr, ok := r.(*resolved); ok {
		rr.name = "SimpleClusterResolver"
	}
	return r, nil
}
