package distribute_test

import (
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
)

// freeAddrs returns n loopback addresses whose ports were free a moment ago.
func freeAddrs(t testing.TB, n int) []string {
	t.Helper()
	out := make([]string, n)
	var ls []net.Listener
	for i := range out {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out[i] = l.Addr().String()
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// psSpec is a cluster of a chief, workers and servers on loopback.
func psSpec(t testing.TB, workers, servers int) distribute.ClusterSpec {
	a := freeAddrs(t, 1+workers+servers)
	return distribute.ClusterSpec{"chief": a[:1], "worker": a[1 : 1+workers], "ps": a[1+workers:]}
}

// tfConfig is the TF_CONFIG of task typ:idx of spec.
func psTFConfig(spec distribute.ClusterSpec, typ string, idx int) string {
	b, _ := json.Marshal(map[string]any{"cluster": spec, "task": map[string]any{"type": typ, "index": idx}})
	return string(b)
}

func resolverFor(t testing.TB, spec distribute.ClusterSpec, typ string, idx int) distribute.ClusterResolver {
	t.Helper()
	r, err := distribute.NewTFConfigClusterResolver(psTFConfig(spec, typ, idx))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// inProcess is a whole cluster as goroutines of this process: each task
// has its own strategy, as it would in its own process.
type inProcess struct {
	spec    distribute.ClusterSpec
	chief   *distribute.ParameterServerStrategy
	workers []*distribute.ParameterServerStrategy
	servers []*distribute.ParameterServerStrategy
	opts    []distribute.ParameterServerOption
	// perTask, when set, adds each task's own options (its TLS files).
	perTask func(typ string, idx int) []distribute.ParameterServerOption
}

func startInProcess(t testing.TB, workers, servers int, opts ...distribute.ParameterServerOption) *inProcess {
	t.Helper()
	return startCluster(t, &inProcess{spec: psSpec(t, workers, servers), opts: opts}, workers, servers)
}

// startCluster starts the tasks of c (its spec, options and per-task
// options set).
func startCluster(t testing.TB, c *inProcess, workers, servers int) *inProcess {
	t.Helper()
	for i := range servers {
		c.servers = append(c.servers, c.start(t, "ps", i))
	}
	var wg sync.WaitGroup
	c.workers = make([]*distribute.ParameterServerStrategy, workers)
	for i := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); c.workers[i] = c.start(t, "worker", i) }()
	}
	wg.Wait()
	c.chief = c.start(t, "chief", 0)
	t.Cleanup(func() {
		c.chief.Close()
		for _, s := range append(c.workers, c.servers...) {
			if s != nil {
				s.Close()
			}
		}
	})
	return c
}

func (c *inProcess) start(t testing.TB, typ string, idx int) *distribute.ParameterServerStrategy {
	t.Helper()
	opts := c.opts
	if c.perTask != nil {
		opts = append(append([]distribute.ParameterServerOption(nil), opts...), c.perTask(typ, idx)...)
	}
	s, err := distribute.NewParameterServerStrategy(resolverFor(t, c.spec, typ, idx), opts...)
	if err != nil {
		t.Errorf("%s:%d: %v", typ, idx, err)
		return nil
	}
	return s
}

// tasks returns the chief and the workers: the tasks that build the model.
func (c *inProcess) tasks() []*distribute.ParameterServerStrategy {
	return append([]*distribute.ParameterServerStrategy{c.chief}, c.workers...)
}

// within fails t if fn takes longer than d.
func within(t testing.TB, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not finish within %v", what, d)
	}
}

var _ = fmt.Sprint
