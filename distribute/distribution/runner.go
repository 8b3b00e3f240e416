package distribution

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/ops"
)

// errAborted is what a device's collectives return when another device of
// the step failed.
var errAborted = errors.New("distribution: another device failed")

// runner runs a distribution's replicas, one goroutine per mesh device, as
// MirroredStrategy runs its replicas, with the sharded collectives.
type runner struct {
	d    Interface
	coll *distribute.ShardCollective
	mu   sync.Mutex // one step at a time

	stMu  sync.Mutex
	vars  map[*ops.Variable]*shardedVar
	order []*shardedVar // vars in placement order: every device binds them in it
	opts  map[any]*shardedOptimizer

	gathered []gatherStats // per device (gather.go)
}

// checkRunnable refuses a mesh the runner cannot execute on: it runs every
// device on the CPU, so a GPU device would silently be one.
func checkRunnable(m *DeviceMesh) error {
	for _, d := range m.devices {
		if !strings.HasPrefix(d, "cpu:") {
			return fmt.Errorf("distribution: device %s: distributions run on logical CPUs only for now (distribute.SetLogicalCPUs); GPU meshes are not executed yet", d)
		}
	}
	return nil
}

func newRunner(d Interface) *runner {
	n := d.base().mesh.Size()
	return &runner{d: d, coll: distribute.NewShardCollective(n),
		vars: map[*ops.Variable]*shardedVar{}, opts: map[any]*shardedOptimizer{}, gathered: make([]gatherStats, n)}
}

// runReplicas calls fn once per device, concurrently, and waits. Around
// fn each device gathers the whole weights it holds shards of and frees
// them after (gather.go). A device that fails or panics aborts the
// collectives of the others, so none waits for it; the first real error
// is returned.
func (r *runner) runReplicas(fn func(rc ops.ReplicaContext) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stMu.Lock()
	svs := append([]*shardedVar(nil), r.order...)
	r.stMu.Unlock()
	n := r.coll.Replicas()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for dev := 0; dev < n; dev++ {
		wg.Add(1)
		go func(dev int) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[dev] = fmt.Errorf("distribution: device %d (%s) panicked: %v", dev, r.d.base().mesh.devices[dev], p)
					r.coll.Abort(errAborted)
				}
			}()
			defer r.unbind(dev, svs)
			err := r.bind(dev, svs)
			if err == nil {
				err = fn(deviceCtx{dev: dev, r: r})
			}
			if err != nil {
				errs[dev] = err
				r.coll.Abort(errAborted)
			}
		}(dev)
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, errAborted)) {
			first = err
		}
	}
	if first != nil {
		r.coll.Reset()
	}
	return first
}

// deviceCtx is the ops.ReplicaContext of one device's step.
type deviceCtx struct {
	dev int
	r   *runner
}

func (c deviceCtx) ReplicaID() int   { return c.dev }
func (c deviceCtx) NumReplicas() int { return c.r.coll.Replicas() }
func (c deviceCtx) AllReduceSum(bufs [][]float32) error {
	return c.r.coll.AllReduceSum(c.dev, bufs)
}
