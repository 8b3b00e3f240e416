package keras

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

// Task types of a parameter-server cluster, as TF_CONFIG names them.
const (
	psChief  = "chief"
	psWorker = "worker"
	psServer = "ps"
)

// psStrategy is implemented by strategies whose variables live on
// parameter servers (distribute.ParameterServerStrategy), so that Fit
// trains as TensorFlow's model.fit does under that strategy. Every task
// of the cluster runs the same program and calls Fit; what Fit does
// depends on the task:
//
//   - on the chief (the coordinator) it schedules FitConfig.StepsPerEpoch
//     train steps per epoch on the workers, sums the metric states they
//     return, runs the callbacks, and validates on its own copy of the
//     weights, pulled from the servers at the end of every epoch;
//   - on a worker it registers the train step, over its own pass of the
//     data it was given (shuffled by its own seed), and serves the
//     coordinator's calls until the coordinator's Fit ends (so that a
//     program may call Fit again, or run a custom loop after it) or the
//     coordinator is done;
//   - on a parameter server it serves until the coordinator is done.
//
// Go functions cannot be shipped between processes: every task registers
// the same step names in the same order (PSRegister), and the coordinator
// schedules them by name.
type psStrategy interface {
	engine.Strategy
	// PSTask is this process's task type (psChief, psWorker or psServer)
	// and its index among the tasks of that type.
	PSTask() (taskType string, index int)
	// RunReplicas (engine.Strategy), on a worker, runs a step on the
	// servers' current values of the tracked variables with a replica
	// context implementing ops.ParameterServerContext, and gives the
	// servers the non-trainable values the step changed (moving
	// statistics).
	//
	// PSWorkers is the number of worker tasks.
	PSWorkers() int
	// PSRegister registers step under name on this task. On a worker,
	// step runs once per call the coordinator schedules, with the call's
	// arguments, never two at a time, and its result goes back to the
	// coordinator.
	PSRegister(name string, step func(args []float64) ([]float64, error)) error
	// PSSchedule (coordinator) schedules one call of name with args on
	// whichever worker is free and returns a function that waits for its
	// result. A call whose worker dies runs again on another one.
	PSSchedule(name string, args ...float64) (wait func() ([]float64, error))
	// PSJoin (coordinator) waits until every call scheduled so far has
	// run, and returns the first error of one.
	PSJoin() error
	// PSServe serves: a ps until the coordinator is done (its Close), a
	// worker until the coordinator finished the Fit whose step is
	// registered as name (PSFinish) or is done.
	PSServe(name string) error
	// PSFinish (coordinator) tells every worker that the Fit whose step
	// is registered as name is over: their PSServe(name) returns, and
	// every task goes on to the program's next Fit or loop.
	PSFinish(name string) error
	// PSFinalize (coordinator) makes the servers' optimizers copy their
	// moving averages into the variables (use_ema), as
	// FinalizeVariableValues does at the end of Fit.
	PSFinalize() error
	// PSClosed reports whether the coordinator shut the cluster down:
	// the servers are gone, and the chief's weights are the last pulled.
	PSClosed() bool
	// PSTrack places vars on the servers (in the same order on every
	// task, which gives them their ids); on the chief it also gives the
	// servers their values. Tracking a variable twice does nothing.
	PSTrack(vars []*ops.Variable) error
	// PSPull copies the servers' values of vars into this task's copies;
	// PSPush assigns this task's values to the servers' variables.
	PSPull(vars []*ops.Variable) error
	PSPush(vars []*ops.Variable) error
	// PSPullOptimizer copies the state of the servers' optimizer for
	// vars (its iterations and slots) into opt, this task's optimizer;
	// PSPushOptimizer restores the servers' optimizer from opt. A
	// strategy that cannot move the optimizer's state returns an error
	// wrapping errors.ErrUnsupported.
	PSPullOptimizer(opt any, vars []*ops.Variable) error
	PSPushOptimizer(opt any, vars []*ops.Variable) error
}

// errPSNeedsSteps is TensorFlow's refusal of a Fit without
// steps_per_epoch under ParameterServerStrategy.
var errPSNeedsSteps = errors.New("keras: Fit: steps_per_epoch must be specified with ParameterServerStrategy (FitConfig.StepsPerEpoch): the coordinator schedules that many steps per epoch, and each worker's data repeats, so an epoch has no end of its own")

// psFits counts the Fits under each parameter-server strategy of this
// process: the step of the n-th is registered as "keras.fit.<n>" on every
// task (the same program makes the same calls in the same order).
var psFits = struct {
	sync.Mutex
	n map[psStrategy]int
}{n: map[psStrategy]int{}}

func psFitName(ps psStrategy) string {
	psFits.Lock()
	defer psFits.Unlock()
	psFits.n[ps]++
	return fmt.Sprintf("keras.fit.%d", psFits.n[ps])
}

// psStepMu runs one parameter-server step (or its tracing) at a time in
// this process. A real cluster has one task per process, so it never
// waits there; tasks of one process (tests) would otherwise trace
// concurrently, and gorgonia's graph building is not safe for that.
var psStepMu sync.Mutex

// asPS returns the model's strategy as a psStrategy.
func (m *Model) asPS() (psStrategy, bool) {
	ps, ok := m.strategy.(psStrategy)
	return ps, ok
}

// psLocal readies a chief's local copies for Evaluate or Predict: fresh
// weights from the servers, or, after the chief's Close, the weights it
// pulled last. On a worker or a server it is an error: their copies are
// stale once the coordinator is done, and the servers gone.
func (m *Model) psLocal(what string) error {
	ps, ok := m.asPS()
	if !ok {
		return nil
	}
	task, id := ps.PSTask()
	if task != psChief {
		return fmt.Errorf("keras: %s: this process is %s %d of a ParameterServerStrategy cluster; %s runs on the coordinator (the chief task)", what, task, id, what)
	}
	if !m.Built() || ps.PSClosed() {
		// After the coordinator's Close the servers are gone: the
		// weights are those pulled last (a Fit pulls at each epoch's
		// end, after its steps; a custom loop with PullVariables).
		return nil
	}
	if err := ps.PSPull(m.Weights()); err != nil {
		return fmt.Errorf("keras: %s: pulling the weights from the parameter servers: %w", what, err)
	}
	return nil
}

// fitPS is Fit under a parameter-server strategy (see psStrategy).
func (m *Model) fitPS(ps psStrategy, x, y any, cfg FitConfig) (*History, error) {
	if cfg.StepsPerEpoch <= 0 {
		return nil, errPSNeedsSteps
	}
	if !m.compiled {
		return nil, fmt.Errorf("keras: Fit: %w", errNotCompiled)
	}
	name := psFitName(ps)
	task, id := ps.PSTask()
	switch task {
	case psServer:
		// A server holds variables and applies the optimizer; it has
		// nothing to register, and serves until the coordinator is done.
		if err := ps.PSServe(""); err != nil {
			return nil, fmt.Errorf("keras: Fit: ps %d: %w", id, err)
		}
		return &History{History: map[string][]float64{}}, nil
	case psWorker, psChief:
	default:
		return nil, fmt.Errorf("keras: Fit: unknown parameter-server task type %q (want chief, worker or ps)", task)
	}
	if task == psChief && ps.PSClosed() {
		return nil, errors.New("keras: Fit: the ParameterServerStrategy's cluster was shut down (Close): the parameter servers are gone; call Fit before Close")
	}
	train, val, err := m.fitSources(x, y, cfg)
	if err != nil {
		return nil, err
	}
	if task == psWorker {
		return m.fitPSWorker(ps, name, id, train, cfg)
	}
	return m.fitPSChief(ps, name, train, val, cfg)
}

// psPassTag is the epoch a worker's k-th pass over its data is ordered
// by: each worker shuffles with its own seed, as TensorFlow's per-worker
// datasets do, and never as the chief's pass 0 or another worker.
func psPassTag(worker, k int) int { return (worker+1)<<24 | k&(1<<24-1) }

// psWorkerInput is a worker's endless iterator over its data: a pass
// that ends starts the next one.
type psWorkerInput struct {
	ctx    context.Context
	src    source
	worker int
	k      int
	pass   batches
}

func (in *psWorkerInput) next() ([]ops.Value, error) {
	for tries := 0; tries < 2; tries++ {
		if in.pass == nil {
			in.pass = in.src.Pass(in.ctx, psPassTag(in.worker, in.k))
			in.k++
		}
		if b, ok := in.pass.Next(); ok {
			return b, nil
		}
		err := in.pass.Err()
		in.pass.Close()
		in.pass = nil
		if err != nil {
			return nil, err
		}
	}
	return nil, errEmpty
}

func (in *psWorkerInput) close() {
	if in.pass != nil {
		in.pass.Close()
		in.pass = nil
	}
}

// fitPSWorker registers the train step over this worker's data and serves
// the coordinator until its Fit ends.
func (m *Model) fitPSWorker(ps psStrategy, name string, id int, train source, cfg FitConfig) (*History, error) {
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	in := &psWorkerInput{ctx: ctx, src: train, worker: id}
	defer in.close()
	// The first batch gives the shapes to trace with; it is traced, not
	// trained on, so the steps start from it again.
	first, err := in.next()
	if err != nil {
		return nil, fmt.Errorf("keras: Fit: worker %d: %w", id, err)
	}
	err = m.psPrepare(ps, first)
	in.close()
	in.k = 0
	if err != nil {
		return nil, fmt.Errorf("keras: Fit: worker %d: %w", id, err)
	}
	var mu sync.Mutex
	over := false // the coordinator's Fit ended
	// A call runs args[0] steps (the compiled StepsPerExecution) and
	// returns the metric states of all of them.
	step := func(args []float64) (out []float64, err error) {
		mu.Lock()
		defer mu.Unlock()
		if over {
			// A call the coordinator queued before its Fit stopped
			// (cancelled, or failed) and nobody waits for: skipped,
			// without an error that the coordinator would report to
			// the program's next Fit.
			return nil, nil
		}
		n, lr, err := psStepArgs(args)
		if err != nil {
			return nil, fmt.Errorf("keras: Fit: worker %d: %w", id, err)
		}
		psSetLearningRate(m.optimizer, lr)
		psStepMu.Lock()
		defer psStepMu.Unlock()
		m.ResetMetrics()
		for range n {
			batch, err := in.next()
			if err != nil {
				return nil, fmt.Errorf("keras: Fit: worker %d: %w", id, err)
			}
			if _, err := m.runReplicated(m.trainFunction(), batch, true); err != nil {
				return nil, ops.Where(fmt.Sprintf("keras: Fit: worker %d: train step", id), err)
			}
		}
		return m.metricStates(), nil
	}
	if err := ps.PSRegister(name, step); err != nil {
		return nil, fmt.Errorf("keras: Fit: worker %d: %w", id, err)
	}
	serr := ps.PSServe(name)
	// The coordinator's Fit is over: wait for a step still running, and
	// refuse later calls (the input is closed when this returns).
	mu.Lock()
	over = true
	mu.Unlock()
	if serr != nil {
		return nil, fmt.Errorf("keras: Fit: worker %d: %w", id, serr)
	}
	return &History{History: map[string][]float64{}}, nil
}

// psStepArgs reads a scheduled call's arguments: the number of steps to
// run, then the learning rate when psLearningRate sent one.
func psStepArgs(args []float64) (steps int, lr []float64, err error) {
	if len(args) < 1 || len(args) > 2 || !(args[0] >= 1 && args[0] <= 1<<20) || args[0] != float64(int(args[0])) {
		return 0, nil, fmt.Errorf("a train step's arguments are (steps, [learning rate]), got %v", args)
	}
	return int(args[0]), args[1:], nil
}

// psLearningRate is the learning-rate argument of a scheduled step: the coordinator's
// learning rate when it is a constant (a callback such as
// LearningRateScheduler or ReduceLROnPlateau may have set it), which the
// worker's optimizer takes, so that its next push brings it to the
// servers' optimizers; none when the rate follows a schedule, which the
// servers' optimizers follow themselves.
func psLearningRate(opt any) []float64 {
	o, ok := opt.(interface{ GetConfig() map[string]any })
	if !ok {
		return nil
	}
	if lr, ok := o.GetConfig()["learning_rate"].(float64); ok {
		return []float64{lr}
	}
	return nil
}

// psSetLearningRate gives a worker's optimizer the coordinator's constant
// learning rate, when psLearningRate sent one.
func psSetLearningRate(opt any, args []float64) {
	if len(args) != 1 {
		return
	}
	o, ok := opt.(interface {
		GetConfig() map[string]any
		SetLearningRate(float64)
	})
	if !ok {
		return
	}
	if lr, ok := o.GetConfig()["learning_rate"].(float64); ok && lr != args[0] {
		o.SetLearningRate(args[0])
	}
}

// metricStates is the state of every logged metric, one after another in
// log order: a [metrics.Reducible]'s sums, else (result, 1).
func (m *Model) metricStates() []float64 {
	var state []float64
	for _, e := range m.logEntries() {
		if r, ok := e.mt.(metrics.Reducible); ok {
			state = append(state, r.State()...)
		} else {
			state = append(state, e.mt.Result(), 1)
		}
	}
	return state
}

// logsOfStates turns states summed over steps (metricStates' layout) into
// logs.
func (m *Model) logsOfStates(sum []float64) (Logs, error) {
	out := Logs{}
	at := 0
	for _, e := range m.logEntries() {
		n := 2
		r, reducible := e.mt.(metrics.Reducible)
		if reducible {
			n = len(r.State())
		}
		if at+n > len(sum) {
			return nil, fmt.Errorf("the workers' steps report %d metric values, the coordinator's metrics need more (%s)", len(sum), e.name)
		}
		st := sum[at : at+n]
		at += n
		v := 0.0
		switch {
		case reducible:
			v = r.ResultOf(st)
		case st[1] > 0:
			v = st[0] / st[1]
		}
		out[e.name] = v
	}
	if at != len(sum) {
		return nil, fmt.Errorf("the workers' steps report %d metric values, the coordinator's metrics have %d", len(sum), at)
	}
	return out, nil
}
