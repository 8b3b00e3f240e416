package keras_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// fakeCluster is an in-process stand-in for a ParameterServerStrategy
// cluster: one server holding every variable (by its index in the
// models' Weights order, the same on every task) and applying its own
// optimizer, a queue of scheduled calls the workers take, and the
// coordinator's done signal. Each task's model captures its own fakeTask.
type fakeCluster struct {
	mu     sync.Mutex
	server [][]float32
	opt    optimizers.Optimizer
	vars   []*ops.Variable // the server's variables, for opt
	pushes [][][]float32   // every PSPush of all variables, in order

	queues  []chan *fakeCall // per worker: calls are dealt round-robin
	next    int
	dead    map[int]bool
	done    chan struct{}
	pending sync.WaitGroup
	workers int
	// dieAfter[w] > 0: worker w dies when it takes its dieAfter[w]-th
	// call, which goes back to the queue.
	dieAfter map[int]int
	calls    map[int]int // calls each worker completed
	// finished holds the Fits the coordinator ended (PSFinish); finCh
	// is closed and replaced when one is added.
	finished map[string]bool
	finCh    chan struct{}
}

type fakeCall struct {
	name string
	args []float64
	res  chan fakeResult
}

type fakeResult struct {
	v   []float64
	err error
}

func newFakeCluster(workers int, serverOpt optimizers.Optimizer) *fakeCluster {
	c := &fakeCluster{opt: serverOpt, done: make(chan struct{}),
		workers: workers, dieAfter: map[int]int{}, calls: map[int]int{}, dead: map[int]bool{},
		finished: map[string]bool{}, finCh: make(chan struct{})}
	for range workers {
		c.queues = append(c.queues, make(chan *fakeCall, 1024))
	}
	return c
}

// deal queues call on the next live worker.
func (c *fakeCluster) deal(call *fakeCall) {
	c.mu.Lock()
	w := -1
	for range c.workers {
		k := c.next % c.workers
		c.next++
		if !c.dead[k] {
			w = k
			break
		}
	}
	if w >= 0 {
		c.queues[w] <- call // under mu: a worker marked dead has had its last call
	}
	c.mu.Unlock()
	if w < 0 {
		call.res <- fakeResult{err: errors.New("every worker is dead")}
		c.pending.Done()
	}
}

// finish is the coordinator being done: servers and workers return.
func (c *fakeCluster) finish() { close(c.done) }

func (c *fakeCluster) task(taskType string, id int) *fakeTask {
	return &fakeTask{c: c, taskType: taskType, id: id, steps: map[string]func([]float64) ([]float64, error){}}
}

// fakeTask is one task's strategy.
type fakeTask struct {
	c        *fakeCluster
	taskType string
	id       int
	model    interface{ Weights() []*ops.Variable }
	steps    map[string]func([]float64) ([]float64, error)
	order    []string
	tracked  bool
}

func (t *fakeTask) NumReplicasInSync() int { return 1 }

// RunReplicas runs a worker's step on the servers' values, then gives
// them the non-trainable values it changed, as the real strategy.
func (t *fakeTask) RunReplicas(fn func(ops.ReplicaContext) error) error {
	if t.taskType != "worker" {
		return fn(engine.Single{})
	}
	ws := t.model.Weights()
	if err := t.PSPull(ws); err != nil {
		return err
	}
	if err := fn(fakePSContext{t}); err != nil {
		return err
	}
	var nt []*ops.Variable
	for _, v := range ws {
		if !v.Trainable() {
			nt = append(nt, v)
		}
	}
	return t.PSPush(nt)
}

// PSTrack checks that the task's model's weights are tracked in order.
func (t *fakeTask) PSTrack(vars []*ops.Variable) error {
	if !slices.Equal(vars, t.model.Weights()) {
		return errors.New("tracked something else than the model's weights")
	}
	t.tracked = true
	if t.taskType == "chief" {
		return t.PSPush(vars)
	}
	return nil
}

func (t *fakeTask) PSTask() (string, int) { return t.taskType, t.id }
func (t *fakeTask) PSWorkers() int        { return t.c.workers }

func (t *fakeTask) PSRegister(name string, step func([]float64) ([]float64, error)) error {
	if _, ok := t.steps[name]; ok {
		return fmt.Errorf("%s registered twice", name)
	}
	t.steps[name] = step
	t.order = append(t.order, name)
	return nil
}

func (t *fakeTask) PSSchedule(name string, args ...float64) func() ([]float64, error) {
	call := &fakeCall{name: name, args: args, res: make(chan fakeResult, 1)}
	t.c.pending.Add(1)
	t.c.deal(call)
	return func() ([]float64, error) {
		r := <-call.res
		return r.v, r.err
	}
}

func (t *fakeTask) PSJoin() error { t.c.pending.Wait(); return nil }

func (t *fakeTask) PSFinish(name string) error {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if !t.c.finished[name] {
		t.c.finished[name] = true
		close(t.c.finCh)
		t.c.finCh = make(chan struct{})
	}
	return nil
}

// PSFinalize applies the server optimizer's moving averages.
func (t *fakeTask) PSFinalize() error {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if f, ok := t.c.opt.(interface{ FinalizeVariableValues([]*ops.Variable) }); ok {
		var tv []*ops.Variable
		for _, v := range t.c.vars {
			if v != nil && v.Trainable() {
				tv = append(tv, v)
			}
		}
		f.FinalizeVariableValues(tv)
	}
	return nil
}

func (t *fakeTask) PSClosed() bool {
	select {
	case <-t.c.done:
		return true
	default:
		return false
	}
}

func (t *fakeTask) PSServe(name string) error {
	if t.taskType != "worker" || name == "" {
		<-t.c.done
		return nil
	}
	for {
		t.c.mu.Lock()
		fin, finCh := t.c.finished[name], t.c.finCh
		t.c.mu.Unlock()
		if fin {
			return nil
		}
		select {
		case <-t.c.done:
			return nil
		case <-finCh:
		case call := <-t.c.queues[t.id]:
			t.c.mu.Lock()
			n := t.c.calls[t.id] + 1
			dies := t.c.dieAfter[t.id] > 0 && n >= t.c.dieAfter[t.id]
			orphans := []*fakeCall{call}
			if dies {
				t.c.dead[t.id] = true
				for len(t.c.queues[t.id]) > 0 {
					orphans = append(orphans, <-t.c.queues[t.id])
				}
			}
			t.c.mu.Unlock()
			if dies {
				for _, o := range orphans {
					t.c.deal(o) // its calls run on the other workers
				}
				return fmt.Errorf("worker %d killed", t.id)
			}
			step, ok := t.steps[call.name]
			var r fakeResult
			if !ok {
				r.err = fmt.Errorf("worker %d: no function %q", t.id, call.name)
			} else {
				r.v, r.err = step(call.args)
			}
			t.c.mu.Lock()
			t.c.calls[t.id]++
			t.c.mu.Unlock()
			call.res <- r
			t.c.pending.Done()
		}
	}
}

// index is v's position in the task model's weights.
func (t *fakeTask) index(v *ops.Variable) (int, error) {
	i := slices.Index(t.model.Weights(), v)
	if i < 0 {
		return 0, fmt.Errorf("%s is not a weight of %s %d's model", v.Name(), t.taskType, t.id)
	}
	return i, nil
}

func (t *fakeTask) PSPull(vars []*ops.Variable) error {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for _, v := range vars {
		i, err := t.index(v)
		if err != nil {
			return err
		}
		if i >= len(t.c.server) || t.c.server[i] == nil {
			return fmt.Errorf("the servers have no value for %s", v.Name())
		}
		if err := v.Assign(t.c.server[i]); err != nil {
			return err
		}
	}
	return nil
}

func (t *fakeTask) PSPush(vars []*ops.Variable) error {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	all := len(vars) == len(t.model.Weights())
	var snap [][]float32
	for _, v := range vars {
		i, err := t.index(v)
		if err != nil {
			return err
		}
		for len(t.c.server) <= i {
			t.c.server = append(t.c.server, nil)
			t.c.vars = append(t.c.vars, nil)
		}
		if t.c.vars[i] == nil {
			t.c.vars[i] = ops.NewVariable(fmt.Sprintf("server/%d", i), v.Shape(), v.Numpy(), v.Trainable())
			t.c.server[i] = t.c.vars[i].Data(0)
		} else {
			copy(t.c.server[i], v.Data(0))
		}
		snap = append(snap, v.Numpy())
	}
	if all {
		t.c.pushes = append(t.c.pushes, snap)
	}
	return nil
}

func (t *fakeTask) PSPullOptimizer(any, []*ops.Variable) error { return errors.ErrUnsupported }
func (t *fakeTask) PSPushOptimizer(any, []*ops.Variable) error { return errors.ErrUnsupported }

// serverWeights copies the server's values.
func (c *fakeCluster) serverWeights() [][]float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([][]float32, len(c.server))
	for i, s := range c.server {
		out[i] = append([]float32(nil), s...)
	}
	return out
}

// fakePSContext is a worker's replica context: the optimizer's push
// applies the server's optimizer and brings the fresh values back.
type fakePSContext struct{ t *fakeTask }

func (fakePSContext) ReplicaID() int   { return 0 }
func (fakePSContext) NumReplicas() int { return 1 }
func (fakePSContext) AllReduceSum([][]float32) error {
	return errors.New("a parameter-server step must not all-reduce")
}

func (p fakePSContext) PushGradients(_ any, vars []*ops.Variable, grads [][]float32) error {
	c := p.t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	sv := make([]*ops.Variable, len(vars))
	for i, v := range vars {
		j, err := p.t.index(v)
		if err != nil {
			return err
		}
		if j >= len(c.vars) || c.vars[j] == nil {
			return fmt.Errorf("the servers have no %s", v.Name())
		}
		sv[i] = c.vars[j]
	}
	if err := c.opt.Apply(nil, grads, sv); err != nil {
		return err
	}
	for i, v := range vars {
		copy(v.Data(0), sv[i].Data(0))
	}
	return nil
}
