package distribute

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gokeras/gokeras/internal/psrpc"
)

// ClusterCoordinator is TensorFlow's tf.distribute.coordinator.ClusterCoordinator:
// on the chief it schedules functions on the workers of a
// [ParameterServerStrategy], each on whichever worker is idle, and
// tolerates workers that die (their functions run elsewhere; a worker that
// comes back at its address is used again). Go functions cannot be sent,
// so every task registers the same functions in the same order
// ([ClusterCoordinator.Function]) and the coordinator sends their ids.
//
// On a worker or server task the coordinator only registers, and
// [ClusterCoordinator.Join] serves until the chief shuts the cluster down.
type ClusterCoordinator struct {
	s *ParameterServerStrategy

	mu      sync.Mutex
	changed *sync.Cond
	queue   []*closure
	pending int   // scheduled, not finished
	err     error // the first function error, until Join or Schedule reports it
	fatal   error // a parameter server is gone: nothing more can run
	stopped bool
	workers []*workerConn
	nextID  int64
	// noWorkerSince is when the last live worker was lost (zero while one is live).
	noWorkerSince time.Time
	loops         sync.WaitGroup
}

type workerConn struct {
	task        int
	addr        string
	c           psrpc.WorkerClient
	close       func() error
	alive       bool
	finished    int64 // functions finished here, for MaxStaleness
	incarnation int64
	lastErr     error
}

func (w *workerConn) name() string { return fmt.Sprintf("worker:%d at %s", w.task, w.addr) }

// RemoteFunction is a function registered with [ClusterCoordinator.Function].
type RemoteFunction struct {
	id   int64
	name string
}

// Name returns the name the function was registered with.
func (f *RemoteFunction) Name() string { return f.name }

// RemoteValue is the future result of a scheduled function (TF's RemoteValue).
type RemoteValue struct {
	done   chan struct{}
	val    any
	err    error
	worker int
}

// Fetch waits for the function to finish and returns its result: what the
// function returned, with numbers as float64 and tensors as *TensorValue
// (a []any of them when it returned a []any), or its error.
func (r *RemoteValue) Fetch() (any, error) {
	<-r.done
	return r.val, r.err
}

// Get is Fetch (TF's RemoteValue.get).
func (r *RemoteValue) Get() (any, error) { return r.Fetch() }

// Ready reports whether the result is there.
func (r *RemoteValue) Ready() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// Worker returns the worker task that ran the function, or -1 while it has
// not finished.
func (r *RemoteValue) Worker() int {
	if !r.Ready() {
		return -1
	}
	return r.worker
}

type closure struct {
	id   int64
	fn   *RemoteFunction
	args []*psrpc.Value
	rv   *RemoteValue
}

// PerWorkerDataset is a dataset that each worker builds for itself (TF's
// PerWorkerDataset); its iterator is an argument of scheduled functions.
type PerWorkerDataset struct{ id int64 }

// PerWorkerIterator stands, in [ClusterCoordinator.Schedule]'s arguments,
// for the iterator of the worker that runs the function: the function
// receives the value its worker's dataset function returned.
type PerWorkerIterator struct{ id int64 }

// Iterator returns the dataset's per-worker iterator (TF's iter(ds)).
func (d *PerWorkerDataset) Iterator() *PerWorkerIterator { return &PerWorkerIterator{id: d.id} }

// NewClusterCoordinator makes the coordinator of s (one per strategy: a
// second call returns the first). On the chief it starts watching the
// workers and the servers.
func NewClusterCoordinator(s *ParameterServerStrategy) (*ClusterCoordinator, error) {
	if s == nil {
		return nil, fmt.Errorf("distribute: NewClusterCoordinator: nil strategy")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.coord != nil {
		return s.coord, nil
	}
	c := &ClusterCoordinator{s: s}
	c.changed = sync.NewCond(&c.mu)
	s.coord = c
	if !s.IsCoordinator() {
		return c, nil
	}
	for i, addr := range s.spec["worker"] {
		conn, err := s.dial(addr, fmt.Sprintf("worker:%d", i))
		if err != nil {
			return nil, fmt.Errorf("distribute: NewClusterCoordinator: worker:%d at %s: %w", i, addr, err)
		}
		c.workers = append(c.workers, &workerConn{task: i, addr: addr, c: psrpc.NewWorkerClient(conn), close: conn.Close})
	}
	c.noWorkerSince = time.Now()
	for _, w := range c.workers {
		c.loops.Add(1)
		go c.workerLoop(w)
	}
	c.loops.Add(1)
	go c.watch()
	return c, nil
}

// Strategy returns the coordinator's strategy.
func (c *ClusterCoordinator) Strategy() *ParameterServerStrategy { return c.s }

// Function registers fn under name and returns its handle. Every task must
// register the same functions in the same order; a worker asked to run a
// function whose name differs from its own registration fails the call
// with an error naming both. fn runs on a worker: it usually calls
// strategy.RunReplicas with a step and returns the loss.
func (c *ClusterCoordinator) Function(name string, fn func(args ...any) (any, error)) *RemoteFunction {
	id := c.s.reg.addFunc(name, fn)
	return &RemoteFunction{id: id, name: name}
}

// CreatePerWorkerDataset registers datasetFn, which each worker calls once,
// the first time a function it runs takes the dataset's iterator (again
// after a restart), as TF's create_per_worker_dataset. Every task must
// create its per-worker datasets in the same order.
func (c *ClusterCoordinator) CreatePerWorkerDataset(datasetFn func() (any, error)) *PerWorkerDataset {
	return &PerWorkerDataset{id: c.s.reg.addDataset(datasetFn)}
}

// Schedule queues fn(args...) to run on the next idle worker and returns
// its result's future without waiting. args are numbers, strings,
// []float32, TensorValue or per-worker iterators. It returns an error (and
// no value) when a parameter server is gone, when an earlier function
// failed (the error is reported once, as TF's), when an argument cannot
// travel, or when called on a task other than the chief.
func (c *ClusterCoordinator) Schedule(fn *RemoteFunction, args ...any) (*RemoteValue, error) {
	if !c.s.IsCoordinator() {
		return nil, fmt.Errorf("distribute: ClusterCoordinator.Schedule: %s:%d is not the coordinator (only the chief schedules; other tasks end with Join)", c.s.taskType, c.s.taskID)
	}
	if fn == nil {
		return nil, fmt.Errorf("distribute: ClusterCoordinator.Schedule: nil function")
	}
	wire := make([]*psrpc.Value, len(args))
	for i, a := range args {
		v, err := encodeValue(a)
		if err != nil {
			return nil, fmt.Errorf("distribute: ClusterCoordinator.Schedule(%s): argument %d: %w", fn.name, i, err)
		}
		wire[i] = v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fatal != nil {
		return nil, c.fatal
	}
	if c.stopped {
		return nil, fmt.Errorf("distribute: ClusterCoordinator.Schedule: the cluster was shut down")
	}
	if err := c.err; err != nil {
		c.err = nil
		return nil, err
	}
	c.nextID++
	cl := &closure{id: c.nextID, fn: fn, args: wire, rv: &RemoteValue{done: make(chan struct{})}}
	c.queue = append(c.queue, cl)
	c.pending++
	c.changed.Broadcast()
	return cl.rv, nil
}

// Join, on the chief, waits until every scheduled function has finished
// and returns the first error of one (once) or the error of a lost
// parameter server. On another task it serves until the chief shuts the
// cluster down, as [ParameterServerStrategy.Join].
func (c *ClusterCoordinator) Join() error {
	if !c.s.IsCoordinator() {
		return c.s.Join()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.pending > 0 && c.fatal == nil && !c.stopped {
		c.changed.Wait()
	}
	if c.fatal != nil {
		return c.fatal
	}
	err := c.err
	c.err = nil
	return err
}

// Done reports whether every scheduled function has finished (TF's done).
func (c *ClusterCoordinator) Done() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending == 0
}

// LiveWorkers returns the workers the coordinator currently dispatches to.
func (c *ClusterCoordinator) LiveWorkers() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for _, w := range c.workers {
		if w.alive {
			out = append(out, w.task)
		}
	}
	return out
}

// stop ends the coordinator's loops (the strategy's Close); queued
// functions fail.
func (c *ClusterCoordinator) stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	c.stopped = true
	for _, cl := range c.queue {
		c.finishLocked(cl, nil, fmt.Errorf("distribute: %s (#%d) did not run: the cluster was shut down", cl.fn.name, cl.id), -1)
	}
	c.queue = nil
	c.changed.Broadcast()
	c.mu.Unlock()
	c.loops.Wait()
	for _, w := range c.workers {
		w.close()
	}
}

func (c *ClusterCoordinator) finishLocked(cl *closure, val any, err error, worker int) {
	cl.rv.val, cl.rv.err, cl.rv.worker = val, err, worker
	if worker >= 0 && worker < len(c.workers) {
		c.workers[worker].finished++
	}
	close(cl.rv.done)
	c.pending--
	if err != nil && c.err == nil && c.fatal == nil {
		c.err = err
	}
	c.changed.Broadcast()
}

// failAllLocked makes err fatal: every queued function fails with it.
func (c *ClusterCoordinator) failAllLocked(err error) {
	if c.fatal == nil {
		c.fatal = err
	}
	for _, cl := range c.queue {
		c.finishLocked(cl, nil, c.fatal, -1)
	}
	c.queue = nil
	c.changed.Broadcast()
}

// sleep waits d or until the coordinator stops; false when it stopped.
func (c *ClusterCoordinator) sleep(d time.Duration) bool {
	select {
	case <-c.s.done:
		return false
	case <-time.After(d):
		return true
	}
}

// setAlive records a worker's state.
func (c *ClusterCoordinator) setAlive(w *workerConn, alive bool) {
	c.mu.Lock()
	w.alive = alive
	live := 0
	for _, x := range c.workers {
		if x.alive {
			live++
		}
	}
	if live == 0 {
		c.noWorkerSince = time.Now()
	} else {
		c.noWorkerSince = time.Time{}
	}
	if alive {
		// A worker that (re)joins starts level with the slowest live
		// one, for the staleness bound.
		slowest := int64(-1)
		for _, x := range c.workers {
			if x.alive && x != w && (slowest < 0 || x.finished < slowest) {
				slowest = x.finished
			}
		}
		w.finished = max(slowest, 0)
	}
	c.changed.Broadcast()
	c.mu.Unlock()
}

// mayTakeLocked reports whether w may start another function under
// MaxStaleness: it has finished at most k more than the slowest live
// worker. The slowest worker may always start one, so the bound never
// holds back every worker.
func (c *ClusterCoordinator) mayTakeLocked(w *workerConn) bool {
	k := c.s.cfg.maxStaleness
	if k < 0 {
		return true
	}
	for _, x := range c.workers {
		if x.alive && x != w && w.finished-x.finished > int64(k) {
			return false
		}
	}
	return true
}

// workerLoop runs closures on one worker while it is alive, and probes it
// while it is not.
func (c *ClusterCoordinator) workerLoop(w *workerConn) {
	defer c.loops.Done()
	for {
		c.mu.Lock()
		stopped := c.stopped || c.fatal != nil
		c.mu.Unlock()
		if stopped {
			return
		}
		if !w.alive {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			st, err := w.c.Ping(ctx, &psrpc.Empty{})
			cancel()
			if err != nil {
				c.mu.Lock()
				w.lastErr = err
				c.mu.Unlock()
				if !c.sleep(c.s.cfg.probeInterval) {
					return
				}
				continue
			}
			w.incarnation = st.Incarnation
			c.setAlive(w, true)
		}
		c.mu.Lock()
		for (len(c.queue) == 0 || !c.mayTakeLocked(w)) && !c.stopped && c.fatal == nil {
			c.changed.Wait()
		}
		if c.stopped || c.fatal != nil {
			c.mu.Unlock()
			return
		}
		cl := c.queue[0]
		c.queue = c.queue[1:]
		c.mu.Unlock()
		c.run(w, cl)
	}
}

// run sends one closure to w and settles it: done, failed, or back in the
// queue when w was lost.
func (c *ClusterCoordinator) run(w *workerConn, cl *closure) {
	ctx, cancel := context.WithTimeout(context.Background(), c.s.cfg.stepTimeout)
	resp, err := w.c.Run(ctx, &psrpc.RunRequest{Function: cl.fn.id, Name: cl.fn.name, Args: cl.args, Closure: cl.id, Writes: c.s.chiefWrites()})
	cancel()
	if err != nil {
		st, _ := status.FromError(err)
		switch st.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Aborted:
		default:
			// Not the worker's loss: a mismatched registration, an
			// argument or a result that cannot travel. Running it
			// elsewhere would fail the same way.
			c.mu.Lock()
			c.finishLocked(cl, nil, fmt.Errorf("distribute: %s (#%d) on worker:%d: %s: %s", cl.fn.name, cl.id, w.task, st.Code(), st.Message()), w.task)
			c.mu.Unlock()
			return
		}
		// Lost (Unavailable) or too slow (DeadlineExceeded): run it
		// elsewhere, probe this one.
		c.mu.Lock()
		w.lastErr = err
		if !c.stopped && c.fatal == nil {
			c.queue = append([]*closure{cl}, c.queue...)
		} else {
			c.finishLocked(cl, nil, fmt.Errorf("distribute: %s (#%d) did not finish: the cluster was shut down", cl.fn.name, cl.id), -1)
		}
		c.mu.Unlock()
		c.setAlive(w, false)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case resp.PsGone != "":
		c.finishLocked(cl, nil, fmt.Errorf("%s: %w", resp.PsGone, ErrParameterServerGone), w.task)
		c.failAllLocked(c.err)
	case resp.Error != "":
		c.finishLocked(cl, nil, fmt.Errorf("distribute: %s (#%d) failed on worker:%d: %s", cl.fn.name, cl.id, w.task, resp.Error), w.task)
	default:
		vals := make([]any, len(resp.Results))
		for i, r := range resp.Results {
			v, err := decodeValue(r)
			if err != nil {
				c.finishLocked(cl, nil, fmt.Errorf("distribute: %s (#%d): result %d from worker:%d: %w", cl.fn.name, cl.id, i, w.task, err), w.task)
				return
			}
			vals[i] = v
		}
		var val any = vals
		if !resp.Multi {
			val = nil
			if len(vals) == 1 {
				val = vals[0]
			}
		}
		c.finishLocked(cl, val, nil, w.task)
	}
}

// noWorkerTimeout is how long functions wait in the queue with no worker
// alive before they fail.
func (c *ClusterCoordinator) noWorkerTimeout() time.Duration { return c.s.cfg.rpcTimeout }

// watch pings the servers (a server that is gone stops the job) and fails
// the queue when no worker has been alive for too long.
func (c *ClusterCoordinator) watch() {
	defer c.loops.Done()
	for c.sleep(c.s.cfg.probeInterval) {
		c.mu.Lock()
		if c.stopped || c.fatal != nil {
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		err := c.s.forEachPS(func(p *psClient) error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := p.c.Ping(ctx, &psrpc.Empty{})
			if err != nil && status.Code(err) == codes.Unavailable {
				return &psGone{name: p.name(), err: err}
			}
			return nil
		})
		c.mu.Lock()
		if err != nil {
			var g *psGone
			if errors.As(err, &g) {
				err = g
			}
			c.failAllLocked(err)
			c.mu.Unlock()
			return
		}
		if !c.noWorkerSince.IsZero() && len(c.queue) > 0 && time.Since(c.noWorkerSince) > c.noWorkerTimeout() {
			var why []string
			for _, w := range c.workers {
				why = append(why, fmt.Sprintf("%s: %v", w.name(), w.lastErr))
			}
			sort.Strings(why)
			err := fmt.Errorf("distribute: no worker has answered for %v; %d function(s) could not run (%s)", c.noWorkerTimeout(), len(c.queue), strings.Join(why, "; "))
			for _, cl := range c.queue {
				c.finishLocked(cl, nil, err, -1)
			}
			c.queue = nil
			c.noWorkerSince = time.Now()
		}
		c.mu.Unlock()
	}
}
