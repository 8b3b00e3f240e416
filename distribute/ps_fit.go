package distribute

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// The methods below are what keras.Model.Fit asks of a parameter-server
// strategy (keras/fit_ps.go): the task, the variables' placement, pulls
// and pushes of the weights and of the servers' optimizer state, and the
// train step registered, scheduled and served through the strategy's
// ClusterCoordinator. Programs do not call them; they call Fit.

// fitFunctions are the functions Fit registered, by strategy and name.
var fitFunctions = struct {
	sync.Mutex
	m map[*ParameterServerStrategy]map[string]*RemoteFunction
}{m: map[*ParameterServerStrategy]map[string]*RemoteFunction{}}

// PSTask returns this task's type ("chief", "worker" or "ps") and index,
// for keras.Model.Fit.
func (s *ParameterServerStrategy) PSTask() (string, int) { return s.taskType, s.taskID }

// PSWorkers returns the number of worker tasks, for keras.Model.Fit.
func (s *ParameterServerStrategy) PSWorkers() int { return s.NumWorkers() }

// PSTrack is [ParameterServerStrategy.Track], for keras.Model.Fit.
func (s *ParameterServerStrategy) PSTrack(vars []*ops.Variable) error { return s.Track(vars...) }

// PSPull is [ParameterServerStrategy.PullVariables], for keras.Model.Fit.
func (s *ParameterServerStrategy) PSPull(vars []*ops.Variable) error {
	if len(vars) == 0 {
		return nil
	}
	return s.PullVariables(vars...)
}

// PSPush is [ParameterServerStrategy.PushVariables], for keras.Model.Fit.
func (s *ParameterServerStrategy) PSPush(vars []*ops.Variable) error {
	if len(vars) == 0 {
		return nil
	}
	return s.PushVariables(vars...)
}

// PSRegister registers Fit's step with the strategy's coordinator, on
// every task, for keras.Model.Fit. The step's result travels as numbers.
func (s *ParameterServerStrategy) PSRegister(name string, step func(args []float64) ([]float64, error)) error {
	c, err := NewClusterCoordinator(s)
	if err != nil {
		return err
	}
	f := c.Function(name, func(args ...any) (any, error) {
		in := make([]float64, len(args))
		for i, a := range args {
			x, ok := a.(float64)
			if !ok {
				return nil, fmt.Errorf("distribute: %s: argument %d is a %T, want a number", name, i, a)
			}
			in[i] = x
		}
		st, err := step(in)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(st))
		for i, v := range st {
			out[i] = v
		}
		return out, nil
	})
	fitFunctions.Lock()
	defer fitFunctions.Unlock()
	if fitFunctions.m[s] == nil {
		fitFunctions.m[s] = map[string]*RemoteFunction{}
	}
	fitFunctions.m[s][name] = f
	return nil
}

// PSSchedule schedules Fit's step name with args on the next idle worker
// and returns the wait for its result, for keras.Model.Fit.
func (s *ParameterServerStrategy) PSSchedule(name string, args ...float64) func() ([]float64, error) {
	fail := func(err error) func() ([]float64, error) { return func() ([]float64, error) { return nil, err } }
	fitFunctions.Lock()
	f := fitFunctions.m[s][name]
	fitFunctions.Unlock()
	if f == nil {
		return fail(fmt.Errorf("distribute: ParameterServerStrategy: no function %q registered", name))
	}
	c, err := NewClusterCoordinator(s)
	if err != nil {
		return fail(err)
	}
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = a
	}
	rv, err := c.Schedule(f, in...)
	if err != nil {
		return fail(err)
	}
	return func() ([]float64, error) {
		v, err := rv.Fetch()
		if err != nil {
			return nil, err
		}
		var items []any
		switch v := v.(type) {
		case nil:
		case []any:
			items = v
		default:
			items = []any{v}
		}
		out := make([]float64, len(items))
		for i, it := range items {
			x, ok := it.(float64)
			if !ok {
				return nil, fmt.Errorf("distribute: %s: result %d from worker:%d is a %T, want a number", name, i, rv.Worker(), it)
			}
			out[i] = x
		}
		return out, nil
	}
}

// PSJoin is [ClusterCoordinator.Join] on the chief, for keras.Model.Fit.
func (s *ParameterServerStrategy) PSJoin() error {
	c, err := NewClusterCoordinator(s)
	if err != nil {
		return err
	}
	return c.Join()
}

// PSServe serves this task for keras.Model.Fit: a server until the
// chief's Close ([ParameterServerStrategy.Join]); a worker until the chief
// finished the Fit whose step is registered as name (PSFinish), or until
// the chief's Close, so that every task of the same program goes on to
// its next Fit or loop together.
func (s *ParameterServerStrategy) PSServe(name string) error {
	if s.taskType != "worker" || name == "" {
		return s.Join()
	}
	fitFunctions.Lock()
	f := fitFunctions.m[s][name]
	fitFunctions.Unlock()
	if f == nil {
		return fmt.Errorf("distribute: ParameterServerStrategy: worker:%d serves no function %q (register it first)", s.taskID, name)
	}
	return s.serveUntil(f.id)
}

// PSFinish, on the chief, tells every worker that the Fit whose step is
// registered as name is over (no more calls of it will be scheduled), for
// keras.Model.Fit: each worker's Fit returns.
func (s *ParameterServerStrategy) PSFinish(name string) error {
	if !s.IsCoordinator() {
		return nil
	}
	fitFunctions.Lock()
	f := fitFunctions.m[s][name]
	fitFunctions.Unlock()
	if f == nil {
		return fmt.Errorf("distribute: ParameterServerStrategy: no function %q registered", name)
	}
	s.finishFunction(f.id)
	return nil
}

// PSFinalize, on the chief, makes each server's optimizer copy its moving
// averages into the variables it holds (use_ema: Keras' fit ends with
// finalize_variable_values), for keras.Model.Fit, which then pulls them.
// Servers whose optimizer keeps no averages do nothing.
func (s *ParameterServerStrategy) PSFinalize() error {
	if !s.IsCoordinator() {
		return fmt.Errorf("distribute: ParameterServerStrategy: %s:%d: only the chief finalizes the servers' variables", s.taskType, s.taskID)
	}
	s.chiefWrote()
	return s.forEachPS(func(p *psClient) error {
		ctx, cancel := s.rpcContext()
		defer cancel()
		_, err := p.c.FinalizeVariables(ctx, &psrpc.Empty{})
		return s.psErr(p, "copying the optimizer's moving averages into the variables", err)
	})
}

// PSClosed reports whether the cluster was shut down (Close): the servers
// are gone, and Evaluate or Predict on the chief use its last pulled
// weights.
func (s *ParameterServerStrategy) PSClosed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// PSPullOptimizer copies the servers' optimizer state (step count and
// slots) into opt, a keras/optimizers Optimizer of the same class whose
// slots for vars exist (the coordinator traced its train step), for
// keras.Model.Fit: what a checkpoint then saves. Before any push the
// servers have no optimizer, and opt is left as it is.
func (s *ParameterServerStrategy) PSPullOptimizer(opt any, vars []*ops.Variable) error {
	o, ok := opt.(optimizers.Optimizer)
	if !ok {
		return fmt.Errorf("distribute: optimizer %T: %w", opt, errors.ErrUnsupported)
	}
	st, err := s.OptimizerState()
	if err != nil {
		return err
	}
	if st.Optimizer == nil {
		return nil
	}
	ovs := o.Variables()
	if len(ovs) == 0 {
		return nil
	}
	for _, ov := range ovs[1:] {
		name, slot, ok := slotOwner(o.Name(), vars, ov)
		if !ok {
			continue
		}
		if val, ok := st.Slots[name][slot]; ok {
			if err := ov.Assign(val); err != nil {
				return fmt.Errorf("distribute: slot %q of %s: %w", slot, name, err)
			}
		}
	}
	return ovs[0].Assign([]float32{float32(st.Iterations)})
}

// PSPushOptimizer restores the servers' optimizer from opt (its config,
// step count and slots for vars), for keras.Model.Fit resuming from a
// checkpoint.
func (s *ParameterServerStrategy) PSPushOptimizer(opt any, vars []*ops.Variable) error {
	o, ok := opt.(optimizers.Optimizer)
	if !ok {
		return fmt.Errorf("distribute: optimizer %T: %w", opt, errors.ErrUnsupported)
	}
	st := &ServerOptimizerState{Optimizer: keras.OptimizerConfig(o), Iterations: o.Iterations(), Slots: map[string]map[string][]float32{}}
	ovs := o.Variables()
	for _, ov := range ovs[min(1, len(ovs)):] {
		name, slot, ok := slotOwner(o.Name(), vars, ov)
		if !ok {
			continue
		}
		if st.Slots[name] == nil {
			st.Slots[name] = map[string][]float32{}
		}
		st.Slots[name][slot] = ov.Numpy()
	}
	return s.SetOptimizerState(st)
}

// SetOptimizer sets the servers' optimizer to opt (the chief's; its
// config, step count and the slots it holds for the tracked variables):
// a custom loop's chief calls it after Track and before scheduling steps,
// as Model.Fit's chief does itself. Under TLS the servers take an
// optimizer only from the chief; a worker's push before it fails. Without
// TLS the first push would choose it, and SetOptimizer makes the choice
// the chief's anyway.
func (s *ParameterServerStrategy) SetOptimizer(opt optimizers.Optimizer) error {
	if !s.IsCoordinator() {
		return fmt.Errorf("distribute: ParameterServerStrategy.SetOptimizer: task %s:%d is not the chief; only the chief sets the servers' optimizer", s.taskType, s.taskID)
	}
	if opt == nil {
		return fmt.Errorf("distribute: ParameterServerStrategy.SetOptimizer: nil optimizer")
	}
	return s.PSPushOptimizer(opt, s.TrackedVariables())
}

// slotOwner finds the variable of vars whose slot ov is (the longest name
// that matches, as the servers do) and the slot's name.
func slotOwner(optName string, vars []*ops.Variable, ov *ops.Variable) (name, slot string, ok bool) {
	for _, v := range vars {
		if sl, match := slotOf(optName, v.Name(), ov.Name()); match && len(v.Name()) > len(name) {
			name, slot, ok = v.Name(), sl, true
		}
	}
	return name, slot, ok
}
