package distribute_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// env is a fake environment for the resolvers.
type env map[string]string

func (e env) lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }

// want is what a resolver should say.
type want struct {
	name            string
	rank, world     int
	local           int
	chief           bool
	taskType        string
	taskID          int
	workers, chiefs []string // expected cluster spec jobs (nil: not checked)
}

func check(t *testing.T, label string, r distribute.ClusterResolver, w want) {
	t.Helper()
	got := want{r.Name(), r.Rank(), r.WorldSize(), r.LocalRank(), r.IsChief(), r.TaskType(), r.TaskID(), nil, nil}
	exp := w
	exp.workers, exp.chiefs = nil, nil
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("%s:\n got %+v\nwant %+v", label, got, exp)
	}
	if w.workers != nil && !reflect.DeepEqual(r.ClusterSpec()["worker"], w.workers) {
		t.Errorf("%s: workers %v, want %v", label, r.ClusterSpec()["worker"], w.workers)
	}
}

// tfConfig builds a TF_CONFIG as Kubeflow's TFJob writes it.
func tfConfig(chief, workers int, taskType string, index int) string {
	cluster := map[string][]string{}
	for i := range chief {
		cluster["chief"] = append(cluster["chief"], fmt.Sprintf("job-chief-%d.ns.svc:2222", i))
	}
	for i := range workers {
		cluster["worker"] = append(cluster["worker"], fmt.Sprintf("job-worker-%d.ns.svc:2222", i))
	}
	cluster["ps"] = []string{"job-ps-0.ns.svc:2222"}
	b, _ := json.Marshal(map[string]any{"cluster": cluster, "task": map[string]any{"type": taskType, "index": index}, "environment": "cloud"})
	return string(b)
}

func TestTFConfigRanks(t *testing.T) {
	// Every task of clusters with and without a chief: ranks are the chief
	// (if any) then the workers, in order, each rank exactly once, and the
	// chief is the chief task or else worker 0 (multi_worker_util).
	for _, chief := range []int{0, 1} {
		for workers := 1; workers <= 4; workers++ {
			seen := map[int]bool{}
			chiefs := 0
			tasks := []struct {
				typ string
				id  int
			}{}
			for i := range chief {
				tasks = append(tasks, struct {
					typ string
					id  int
				}{"chief", i})
			}
			for i := range workers {
				tasks = append(tasks, struct {
					typ string
					id  int
				}{"worker", i})
			}
			for pos, task := range tasks {
				r, err := distribute.NewTFConfigClusterResolver(tfConfig(chief, workers, task.typ, task.id))
				if err != nil {
					t.Fatalf("chief %d workers %d task %v: %v", chief, workers, task, err)
				}
				isChief := (task.typ == "chief") || (chief == 0 && task.id == 0)
				check(t, fmt.Sprintf("chief %d workers %d %s %d", chief, workers, task.typ, task.id), r,
					want{name: "TF_CONFIG", rank: pos, world: chief + workers, chief: isChief, taskType: task.typ, taskID: task.id})
				seen[r.Rank()] = true
				if r.IsChief() {
					chiefs++
				}
			}
			if len(seen) != chief+workers || chiefs != 1 {
				t.Errorf("chief %d workers %d: ranks %v, %d chiefs", chief, workers, seen, chiefs)
			}
		}
	}
}

func TestTFConfigForms(t *testing.T) {
	for _, tc := range []struct {
		cfg string
		w   want
	}{
		// Several tasks per host: the local rank counts the ones before.
		{`{"cluster": {"chief": ["a:1"], "worker": ["a:2", "b:1", "a:3"]}, "task": {"type": "worker", "index": 2}}`,
			want{name: "TF_CONFIG", rank: 3, world: 4, local: 2, taskType: "worker", taskID: 2}},
		{`{"cluster": {"worker": ["a:1", "b:1", "b:2"]}, "task": {"type": "worker", "index": 2}}`,
			want{name: "TF_CONFIG", rank: 2, world: 3, local: 1, taskType: "worker", taskID: 2}},
		// A string index, as Python's int() takes it.
		{`{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": "1"}}`,
			want{name: "TF_CONFIG", rank: 1, world: 2, taskType: "worker", taskID: 1}},
		// tf.train.ClusterSpec's sparse form, dense indices.
		{`{"cluster": {"worker": {"1": "b:1", "0": "a:1"}}, "task": {"type": "worker", "index": 0}}`,
			want{name: "TF_CONFIG", rank: 0, world: 2, chief: true, taskType: "worker", taskID: 0, workers: []string{"a:1", "b:1"}}},
		// The evaluator is a cluster of its own.
		{`{"cluster": {"chief": ["a:1"], "worker": ["b:1"], "evaluator": ["c:1"]}, "task": {"type": "evaluator", "index": 0}}`,
			want{name: "TF_CONFIG", rank: 0, world: 1, chief: true, taskType: "evaluator", taskID: 0}},
		// No cluster: one worker.
		{`{}`, want{name: "TF_CONFIG", world: 1, chief: true, taskType: "worker"}},
		{`{"cluster": {}, "task": {"type": "worker", "index": 0}}`, want{name: "TF_CONFIG", world: 1, chief: true, taskType: "worker"}},
	} {
		r, err := distribute.NewTFConfigClusterResolver(tc.cfg)
		if err != nil {
			t.Errorf("%s: %v", tc.cfg, err)
			continue
		}
		check(t, tc.cfg, r, tc.w)
	}
}

func TestTFConfigErrors(t *testing.T) {
	for _, tc := range []struct{ cfg, field, msg string }{
		{`{"cluster": `, "", "not valid JSON"},
		{`not json`, "", "not valid JSON"},
		{`{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 0}} {}`, "", "text after"},
		{`{"cluster": {"worker": "a:1"}, "task": {"type": "worker", "index": 0}}`, "cluster.worker", "list of addresses"},
		{`{"cluster": {"master": ["a:1"]}, "task": {"type": "master", "index": 0}}`, "cluster", "calls the master \"chief\""},
		{`{"cluster": {"worker": ["a:1"]}}`, "task.type", "missing"},
		{`{"cluster": {"worker": ["a:1"]}, "task": {"type": "chief", "index": 0}}`, "task.type", "\"chief\" is not a job of the cluster"},
		{`{"cluster": {"worker": ["a:1"]}, "task": {"type": "boss", "index": 0}}`, "task.type", "unknown task type"},
		{`{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 2}}`, "task.index", "out of range"},
		{`{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": -1}}`, "task.index", "negative"},
		{`{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 1.5}}`, "task.index", "not an integer"},
		{`{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 1e99}}`, "task.index", "not an integer"},
		{`{"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker"}}`, "task.index", "missing"},
		{`{"cluster": {"chief": ["a:1", "b:1"], "worker": ["c:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.chief", "at most one chief"},
		{`{"cluster": {"evaluator": ["a:1", "b:1"], "worker": ["c:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.evaluator", "at most one evaluator"},
		{`{"cluster": {"chief": ["a:1"], "worker": ["b:1", "a:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[1]", "also cluster.chief[0]"},
		{`{"cluster": {"worker": ["a:1", ""]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[1]", "empty address"},
		{`{"cluster": {"chief": [], "worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.chief", "no chief"},
		// Sparse workers without worker 0 and without a chief: no chief.
		{`{"cluster": {"worker": {"1": "a:1", "2": "b:1"}}, "task": {"type": "worker", "index": 1}}`, "cluster.worker", "has no chief"},
		{`{"cluster": {"worker": {"0": "a:1", "00": "b:1"}}, "task": {"type": "worker", "index": 0}}`, "cluster.worker", "given twice"},
		{`{"cluster": {"worker": {"x": "a:1"}}, "task": {"type": "worker", "index": 0}}`, "cluster.worker", "not a non-negative integer"},
		{strings.Repeat(" ", 1<<20+1), "", "too long"},
		// Addresses a task can neither listen on nor be dialled at.
		{`{"cluster": {"chief": ["a:1"], "ps": ["p"]}, "task": {"type": "ps", "index": 0}}`, "cluster.ps[0]", "not host:port"},
		{`{"cluster": {"worker": ["a:1", "b:99999"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[1]", "not a number in 1..65535"},
		{`{"cluster": {"worker": ["a:0"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "not a number in 1..65535"},
		{`{"cluster": {"worker": ["a:http"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "not a number in 1..65535"},
		{`{"cluster": {"worker": [":2222"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "has no host"},
		{`{"cluster": {"worker": ["a\n.evil:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "control byte (0x0a)"},
		{`{"cluster": {"worker": ["a\u0000:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "control byte (0x00)"},
		{`{"cluster": {"worker": ["a b:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "space"},
		{`{"cluster": {"worker": ["u@h:1"]}, "task": {"type": "worker", "index": 0}}`, "cluster.worker[0]", "not a host name"},
	} {
		_, err := distribute.NewTFConfigClusterResolver(tc.cfg)
		var ce *distribute.ClusterError
		if !errors.As(err, &ce) {
			t.Errorf("%.80s: error %v, want a ClusterError", tc.cfg, err)
			continue
		}
		if ce.Source != "TF_CONFIG" || ce.Field != tc.field || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "TF_CONFIG") {
			t.Errorf("%.80s:\n got %v (field %q)\nwant field %q and %q", tc.cfg, err, ce.Field, tc.field, tc.msg)
		}
	}
}

func TestMPIResolvers(t *testing.T) {
	r, err := distribute.NewMPIClusterResolver(env{"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "0"}.lookup)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "OpenMPI rank 2", r, want{name: "OpenMPI", rank: 2, world: 4, taskType: "worker", taskID: 2})
	r, err = distribute.NewMPIClusterResolver(env{"PMI_RANK": "0", "PMI_SIZE": "3", "MPI_LOCALRANKID": "0"}.lookup)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "MPICH rank 0", r, want{name: "MPICH", rank: 0, world: 3, chief: true, taskType: "worker"})
	for _, e := range []struct {
		env   env
		field string
	}{
		{env{"OMPI_COMM_WORLD_RANK": "4", "OMPI_COMM_WORLD_SIZE": "4"}, "OMPI_COMM_WORLD_RANK"},
		{env{"OMPI_COMM_WORLD_RANK": "x", "OMPI_COMM_WORLD_SIZE": "4"}, "OMPI_COMM_WORLD_RANK"},
		{env{"OMPI_COMM_WORLD_RANK": "0"}, "OMPI_COMM_WORLD_SIZE"},
		{env{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "0"}, "OMPI_COMM_WORLD_SIZE"},
		{env{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "99999999999"}, "OMPI_COMM_WORLD_SIZE"},
		{env{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "-1"}, "OMPI_COMM_WORLD_LOCAL_RANK"},
		{env{"PMI_RANK": "1", "PMI_SIZE": "1"}, "PMI_RANK"},
	} {
		_, err := distribute.NewMPIClusterResolver(e.env.lookup)
		var ce *distribute.ClusterError
		if !errors.As(err, &ce) || ce.Field != e.field {
			t.Errorf("%v: %v, want an error on %s", e.env, err, e.field)
		}
	}
}

func TestSlurmResolver(t *testing.T) {
	base := env{"SLURM_PROCID": "4", "SLURM_NTASKS": "7", "SLURM_LOCALID": "1",
		"SLURM_JOB_NODELIST": "node[01-03],gpu5", "SLURM_TASKS_PER_NODE": "2(x3),1"}
	r, err := distribute.NewSlurmClusterResolver(base.lookup)
	if err != nil {
		t.Fatal(err)
	}
	var workers []string
	for _, n := range []string{"node01", "node02", "node03"} {
		workers = append(workers, n+":8888", n+":8889")
	}
	workers = append(workers, "gpu5:8888")
	check(t, "Slurm rank 4", r, want{name: "Slurm", rank: 4, world: 7, local: 1, taskType: "worker", taskID: 4, workers: workers})

	// The step's variables win over the job's.
	step := env{"SLURM_PROCID": "0", "SLURM_NTASKS": "8", "SLURM_STEP_NUM_TASKS": "2", "SLURM_LOCALID": "0",
		"SLURM_JOB_NODELIST": "n[1-4]", "SLURM_TASKS_PER_NODE": "2(x4)", "SLURM_STEP_NODELIST": "n[3-4]", "SLURM_STEP_TASKS_PER_NODE": "1(x2)"}
	r, err = distribute.NewSlurmClusterResolver(step.lookup)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Slurm step", r, want{name: "Slurm", rank: 0, world: 2, chief: true, taskType: "worker", workers: []string{"n3:8888", "n4:8888"}})

	// No tasks per node: spread evenly.
	even := env{"SLURM_PROCID": "1", "SLURM_NTASKS": "4", "SLURM_NODELIST": "a,b"}
	r, err = distribute.NewSlurmClusterResolver(even.lookup)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Slurm even", r, want{name: "Slurm", rank: 1, world: 4, local: 1, taskType: "worker", taskID: 1, workers: []string{"a:8888", "a:8889", "b:8888", "b:8889"}})
	// Without SLURM_LOCALID the local rank follows the block layout.
	for rank, local := range []int{0, 1, 0, 1, 0, 1, 0} {
		m := env{}
		for k, v := range base {
			m[k] = v
		}
		delete(m, "SLURM_LOCALID")
		m["SLURM_PROCID"] = fmt.Sprint(rank)
		r, err := distribute.NewSlurmClusterResolver(m.lookup)
		if err != nil || r.LocalRank() != local {
			t.Errorf("rank %d without SLURM_LOCALID: local rank %v, %v; want %d", rank, r, err, local)
		}
	}

	for _, e := range []struct {
		set   env
		field string
	}{
		{env{"SLURM_PROCID": "7"}, "SLURM_PROCID"},
		{env{"SLURM_NTASKS": "many"}, "SLURM_NTASKS"},
		{env{"SLURM_TASKS_PER_NODE": "2(x3),2"}, "SLURM_TASKS_PER_NODE"},
		{env{"SLURM_TASKS_PER_NODE": "2(x3)"}, "SLURM_TASKS_PER_NODE"},
		{env{"SLURM_TASKS_PER_NODE": "2(x9)"}, "SLURM_TASKS_PER_NODE"},
		{env{"SLURM_TASKS_PER_NODE": "2(3),1"}, "SLURM_TASKS_PER_NODE"},
		{env{"SLURM_JOB_NODELIST": "node[03-01]"}, "SLURM_JOB_NODELIST"},
		{env{"SLURM_JOB_NODELIST": "node[01-03"}, "SLURM_JOB_NODELIST"},
		{env{"SLURM_JOB_NODELIST": "node[1-999999999]"}, "SLURM_JOB_NODELIST"},
	} {
		m := env{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range e.set {
			m[k] = v
		}
		_, err := distribute.NewSlurmClusterResolver(m.lookup)
		var ce *distribute.ClusterError
		if !errors.As(err, &ce) || ce.Field != e.field || ce.Source != "Slurm" {
			t.Errorf("%v: %v, want an error on %s", e.set, err, e.field)
		}
	}
}

func TestExpandHostlist(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"node[01-03,07],gpu5", []string{"node01", "node02", "node03", "node07", "gpu5"}},
		{"a", []string{"a"}},
		{"n[8-11]", []string{"n8", "n9", "n10", "n11"}},
		{"n[098-101]", []string{"n098", "n099", "n100", "n101"}},
		{"r[1-2]n[1-2]-ib", []string{"r1n1-ib", "r1n2-ib", "r2n1-ib", "r2n2-ib"}},
		{"x[1],y[2-3]z", []string{"x1", "y2z", "y3z"}},
	} {
		got, err := distribute.ExpandHostlist(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ExpandHostlist(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", ",", "a,,b", "n[]", "n[a-b]", "n[1-]", "n[[1]]", "n]1[", "n[1-2", "n[5-1]",
		"n[0-999999]m[0-999999]", "n[1-2] x", strings.Repeat("n", 1000) + "[0-999999]"} {
		if got, err := distribute.ExpandHostlist(bad); err == nil {
			t.Errorf("ExpandHostlist(%q) = %d hosts, want an error", bad, len(got))
		}
	}
}

// compress writes hosts in the hostlist syntax, independently of the
// parser: a run of consecutive numbers with the same prefix and width
// becomes a range.
func compress(hosts []hostNum) string {
	var parts []string
	for i := 0; i < len(hosts); {
		h := hosts[i]
		if h.num < 0 {
			parts = append(parts, h.prefix)
			i++
			continue
		}
		var items []string
		for i < len(hosts) && hosts[i].prefix == h.prefix && hosts[i].num >= 0 && hosts[i].width == h.width {
			j := i
			for j+1 < len(hosts) && hosts[j+1].prefix == h.prefix && hosts[j+1].width == h.width && hosts[j+1].num == hosts[j].num+1 {
				j++
			}
			if j > i {
				items = append(items, fmt.Sprintf("%0*d-%0*d", h.width, hosts[i].num, h.width, hosts[j].num))
			} else {
				items = append(items, fmt.Sprintf("%0*d", h.width, hosts[i].num))
			}
			i = j + 1
		}
		parts = append(parts, h.prefix+"["+strings.Join(items, ",")+"]")
	}
	return strings.Join(parts, ",")
}

type hostNum struct {
	prefix     string
	num, width int // num < 0: no number
}

func (h hostNum) String() string {
	if h.num < 0 {
		return h.prefix
	}
	return fmt.Sprintf("%s%0*d", h.prefix, h.width, h.num)
}

func TestExpandHostlistRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		var hosts []hostNum
		for n := rng.IntN(12) + 1; n > 0; n-- {
			h := hostNum{prefix: []string{"node", "gpu", "rack-a"}[rng.IntN(3)], num: rng.IntN(120), width: 3}
			if rng.IntN(5) == 0 {
				h.num = -1
				h.prefix = fmt.Sprintf("login%c", 'a'+rng.IntN(3))
			}
			if len(hosts) > 0 && rng.IntN(2) == 0 && hosts[len(hosts)-1].num >= 0 {
				h = hosts[len(hosts)-1]
				h.num++
			}
			hosts = append(hosts, h)
		}
		list := compress(hosts)
		got, err := distribute.ExpandHostlist(list)
		if err != nil {
			t.Fatalf("%q: %v", list, err)
		}
		want := make([]string, len(hosts))
		for i, h := range hosts {
			want[i] = h.String()
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ExpandHostlist(%q)\n got %v\nwant %v", list, got, want)
		}
	}
}

func TestResolveClusterOrder(t *testing.T) {
	tf := tfConfig(0, 2, "worker", 1)
	ompi := env{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2"}
	slurm := env{"SLURM_PROCID": "1", "SLURM_NTASKS": "3"}
	pmi := env{"PMI_RANK": "1", "PMI_SIZE": "2"}
	merge := func(es ...env) env {
		m := env{}
		for _, e := range es {
			for k, v := range e {
				m[k] = v
			}
		}
		return m
	}
	for _, tc := range []struct {
		env  env
		name string
	}{
		{merge(env{"TF_CONFIG": tf}, ompi, pmi, slurm), "TF_CONFIG"},
		{merge(env{"TF_CONFIG": "  "}, ompi, pmi, slurm), "OpenMPI"},
		{merge(env{"TF_CONFIG": `{"cluster": {}, "task": {"type": "worker", "index": 0}}`}, ompi), "OpenMPI"},
		{env{"TF_CONFIG": `{}`}, "single worker"},
		{merge(pmi, slurm), "MPICH"},
		{slurm, "Slurm"},
		{env{}, "single worker"},
	} {
		r, err := distribute.ResolveClusterFromEnv(tc.env.lookup)
		if err != nil || r.Name() != tc.name {
			t.Errorf("%v: %v %v, want %s", tc.env, r, err, tc.name)
		}
	}
	// A broken TF_CONFIG is an error, not a fall-through to MPI.
	if _, err := distribute.ResolveClusterFromEnv(merge(env{"TF_CONFIG": "{"}, ompi).lookup); err == nil || !strings.Contains(err.Error(), "TF_CONFIG") {
		t.Errorf("broken TF_CONFIG: %v", err)
	}
	r := distribute.NewSingleWorkerResolver()
	check(t, "single", r, want{name: "single worker", world: 1, chief: true, taskType: "worker"})
}

func TestCheckAgainst(t *testing.T) {
	r, _ := distribute.NewTFConfigClusterResolver(tfConfig(1, 2, "worker", 0)) // rank 1 of 3
	if err := distribute.CheckAgainst(r, 1, 3); err != nil {
		t.Errorf("agreeing: %v", err)
	}
	for _, tc := range []struct {
		rank, size int
		msg        string
	}{
		{2, 3, "every process needs its own TF_CONFIG"},
		{1, 2, "MPI says rank 1 of 2"},
		{0, 4, "differ"},
	} {
		err := distribute.CheckAgainst(r, tc.rank, tc.size)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "TF_CONFIG says this process is worker 0, rank 1 of 3") {
			t.Errorf("MPI rank %d of %d: %v", tc.rank, tc.size, err)
		}
	}
	s, _ := distribute.NewSlurmClusterResolver(env{"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}.lookup)
	if err := distribute.CheckAgainst(s, 0, 1); err == nil || !strings.Contains(err.Error(), "Slurm") {
		t.Errorf("Slurm batch script: %v", err)
	}
}
