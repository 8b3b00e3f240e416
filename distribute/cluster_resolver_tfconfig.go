package distribute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
)

// maxTFConfig bounds the length of a TF_CONFIG (1 MiB: some 40,000 tasks).
const maxTFConfig = 1 << 20

// tfConfigJobs are the jobs a TF_CONFIG cluster may list, in the order a
// MultiWorkerMirroredStrategy numbers its training tasks (chief, workers);
// "ps" and "evaluator" tasks do not train with it.
var tfConfigJobs = []string{"chief", "worker", "ps", "evaluator"}

// NewTFConfigClusterResolver resolves a TF_CONFIG, the JSON that
// TensorFlow reads and Kubeflow's TFJob writes into every pod:
//
//	{"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]},
//	 "task": {"type": "worker", "index": 1}}
//
// The cluster lists the addresses of the tasks of each job ("chief",
// "worker", "ps", "evaluator"; a job may also be an object from task index
// to address, as tf.train.ClusterSpec accepts, if its indices are 0..n-1).
// The task says which one this process is. As in TensorFlow's
// multi_worker_util, the chief and the workers train together: the chief
// is rank 0 and worker i is rank i+1; without a chief, worker i is rank i
// and worker 0 is the chief. An evaluator is a cluster of its own (rank 0
// of 1, its own chief). A "ps" task (of a [ParameterServerStrategy]) is
// rank 0 of 1 and not the chief; MultiWorkerMirroredStrategy refuses it.
// LocalRank counts the training tasks listed before
// this one on the same host. rpc_layer and environment are ignored. A
// TF_CONFIG without a cluster (or an empty one) is a single worker.
//
// Errors name TF_CONFIG and the field: JSON that does not parse, an unknown
// job or task type, a task type the cluster lacks, an index out of range,
// more than one chief or evaluator, an address given twice.
func NewTFConfigClusterResolver(tfConfig string) (ClusterResolver, error) {
	const src = "TF_CONFIG"
	if len(tfConfig) > maxTFConfig {
		return nil, clusterErrorf(src, "", "%d bytes is too long (at most %d)", len(tfConfig), maxTFConfig)
	}
	var cfg struct {
		Cluster map[string]json.RawMessage `json:"cluster"`
		Task    struct {
			Type  *string         `json:"type"`
			Index json.RawMessage `json:"index"`
		} `json:"task"`
	}
	dec := json.NewDecoder(strings.NewReader(tfConfig))
	if err := dec.Decode(&cfg); err != nil {
		return nil, clusterErrorf(src, "", "not valid JSON of the form {\"cluster\": {...}, \"task\": {\"type\": ..., \"index\": ...}}: %v", err)
	}
	if dec.More() {
		return nil, clusterErrorf(src, "", "text after the JSON object")
	}
	spec := ClusterSpec{}
	for _, job := range sortedKeys(cfg.Cluster) {
		raw := cfg.Cluster[job]
		if !knownJob(job) {
			hint := ""
			if job == "master" {
				hint = "; TensorFlow 2 calls the master \"chief\""
			}
			return nil, clusterErrorf(src, "cluster", "unknown job %q (jobs are %s)%s", clip(job), strings.Join(tfConfigJobs, ", "), hint)
		}
		tasks, err := parseTFConfigJob(job, raw)
		if err != nil {
			return nil, err
		}
		spec[job] = tasks
	}
	if len(spec) == 0 {
		r := NewSingleWorkerResolver().(*resolved)
		r.name = src
		return r, nil
	}
	if err := checkTFConfigSpec(spec); err != nil {
		return nil, err
	}

	if cfg.Task.Type == nil || *cfg.Task.Type == "" {
		return nil, clusterErrorf(src, "task.type", "missing: say which task this process is, e.g. \"task\": {\"type\": \"worker\", \"index\": 0}")
	}
	taskType := *cfg.Task.Type
	switch taskType {
	case "chief", "worker", "evaluator", "ps":
	default:
		return nil, clusterErrorf(src, "task.type", "unknown task type %q (chief, worker, ps or evaluator)", clip(taskType))
	}
	if _, ok := spec[taskType]; !ok {
		return nil, clusterErrorf(src, "task.type", "%q is not a job of the cluster (jobs: %v)", taskType, spec.Jobs())
	}
	id, err := parseTFConfigIndex(cfg.Task.Index)
	if err != nil {
		return nil, err
	}
	if n := len(spec[taskType]); id >= n {
		return nil, clusterErrorf(src, "task.index", "%d is out of range: the cluster has %d %q task(s), indices 0 to %d", id, n, taskType, n-1)
	}

	r := &resolved{name: src, taskType: taskType, taskID: id, spec: spec}
	if taskType == "evaluator" {
		// The evaluator is a cluster of its own (multi_worker_util).
		r.rank, r.world, r.chief = 0, 1, true
		return r, nil
	}
	if taskType == "ps" {
		// A parameter server trains nothing: for a
		// MultiWorkerMirroredStrategy it is no rank (the strategy
		// refuses it); a ParameterServerStrategy reads the cluster spec.
		r.rank, r.world = 0, 1
		return r, nil
	}
	// Training tasks in rank order: the chief, then the workers.
	train := append(append([]string(nil), spec["chief"]...), spec["worker"]...)
	if taskType == "chief" {
		r.rank = 0
	} else {
		r.rank = len(spec["chief"]) + id
	}
	r.world = len(train)
	_, hasChief := spec["chief"]
	r.chief = taskType == "chief" || (!hasChief && id == 0)
	host := hostOf(train[r.rank])
	for _, a := range train[:r.rank] {
		if hostOf(a) == host {
			r.localRank++
		}
	}
	return r, nil
}

func knownJob(job string) bool {
	for _, j := range tfConfigJobs {
		if j == job {
			return true
		}
	}
	return false
}

// parseTFConfigJob reads one job's tasks: a list of addresses, or an object
// from task index to address whose indices are 0..n-1.
func parseTFConfigJob(job string, raw json.RawMessage) ([]string, error) {
	const src = "TF_CONFIG"
	field := "cluster." + job
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, clusterErrorf(src, field, "an object of tasks must map task indices to address strings: %v", err)
		}
		if len(m) > MaxWorkers {
			return nil, clusterErrorf(src, field, "%d tasks (at most %d)", len(m), MaxWorkers)
		}
		tasks := make([]string, len(m))
		seen := make([]bool, len(m))
		for _, k := range sortedKeys(m) {
			addr := m[k]
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 {
				return nil, clusterErrorf(src, field, "task index %q is not a non-negative integer", clip(k))
			}
			if i >= len(m) {
				if job == "worker" {
					return nil, clusterErrorf(src, field, "task %d given but the %d tasks must be numbered 0 to %d (if worker 0 is missing and there is no chief, the cluster has no chief)", i, len(m), len(m)-1)
				}
				return nil, clusterErrorf(src, field, "task %d given but the %d tasks must be numbered 0 to %d", i, len(m), len(m)-1)
			}
			if seen[i] {
				return nil, clusterErrorf(src, field, "task %d given twice", i)
			}
			tasks[i], seen[i] = addr, true
		}
		return tasks, nil
	}
	var tasks []string
	if err := json.Unmarshal(raw, &tasks); err != nil {
		return nil, clusterErrorf(src, field, "must be a list of addresses such as [\"host:2222\"]: %v", err)
	}
	if len(tasks) > MaxWorkers {
		return nil, clusterErrorf(src, field, "%d tasks (at most %d)", len(tasks), MaxWorkers)
	}
	if tasks == nil {
		tasks = []string{}
	}
	return tasks, nil
}

// checkTFConfigSpec applies multi_worker_util's checks on the cluster.
func checkTFConfigSpec(spec ClusterSpec) error {
	const src = "TF_CONFIG"
	if c, ok := spec["chief"]; ok && len(c) == 0 && len(spec["worker"]) > 0 {
		// TF would make no task the chief: worker 0 is the chief only
		// when the cluster has no chief job.
		return clusterErrorf(src, "cluster.chief", "an empty list: the cluster would have no chief; list the chief's address, or leave the job out to make worker 0 the chief")
	}
	if n := len(spec["chief"]); n > 1 {
		return clusterErrorf(src, "cluster.chief", "%d tasks: there must be at most one chief", n)
	}
	if n := len(spec["evaluator"]); n > 1 {
		return clusterErrorf(src, "cluster.evaluator", "%d tasks: there must be at most one evaluator", n)
	}
	if len(spec["chief"])+len(spec["worker"]) > MaxWorkers {
		return clusterErrorf(src, "cluster", "%d chief and worker tasks (at most %d)", len(spec["chief"])+len(spec["worker"]), MaxWorkers)
	}
	where := map[string]string{}
	for _, job := range spec.Jobs() {
		for i, a := range spec[job] {
			field := fmt.Sprintf("cluster.%s[%d]", job, i)
			if strings.TrimSpace(a) == "" {
				return clusterErrorf(src, field, "empty address")
			}
			if err := checkAddress(a); err != nil {
				return clusterErrorf(src, field, "%v", err)
			}
			if prev, ok := where[a]; ok {
				return clusterErrorf(src, field, "address %q is also %s: two tasks cannot share an address", clip(a), prev)
			}
			where[a] = field
		}
	}
	return nil
}

// checkAddress accepts a task address "host:port" (an IPv6 host in
// brackets) whose port is a number in 1..65535 and whose host is a name or
// an IP without spaces or control bytes: what a task can listen on and
// its peers can dial. A missing port, port 99999, or a newline or NUL
// inside (which would end up in logs and in name lookups) are errors.
func checkAddress(a string) error {
	for i := 0; i < len(a); i++ {
		if c := a[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("address %q holds a space or control byte (0x%02x) at byte %d", clip(a), c, i)
		}
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("address %q is not host:port (%v)", clip(a), err)
	}
	if host == "" {
		return fmt.Errorf("address %q has no host", clip(a))
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || port[0] == '+' {
		return fmt.Errorf("address %q: port %q is not a number in 1..65535", clip(a), clip(port))
	}
	if strings.ContainsAny(host, "/?#@[]") {
		return fmt.Errorf("address %q: host %q is not a host name or IP address", clip(a), clip(host))
	}
	return nil
}

// parseTFConfigIndex reads task.index: a non-negative integer, or a string
// of one (Python's int() accepts both).
func parseTFConfigIndex(raw json.RawMessage) (int, error) {
	const src, field = "TF_CONFIG", "task.index"
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, clusterErrorf(src, field, "missing: say which task of its type this process is, e.g. \"index\": 0")
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, clusterErrorf(src, field, "%v", err)
		}
		s = strings.TrimSpace(s)
	}
	id, err := strconv.Atoi(s)
	if err != nil {
		return 0, clusterErrorf(src, field, "%s is not an integer", clip(string(raw)))
	}
	if id < 0 {
		return 0, clusterErrorf(src, field, "%d is negative", id)
	}
	return id, nil
}

// hostOf returns the host of a "host:port" address, or the address.
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// sortedKeys returns m's keys, sorted, so that errors do not depend on
// map order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
