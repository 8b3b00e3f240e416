package distribute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// shard is one piece of a tracked variable, held by one server: rows
// [row, row+rows) of the whole, elements [off, off+size).
type shard struct {
	id        int64
	ps        int
	name      string
	shape     ops.Shape
	off, size int
}

type trackedVar struct {
	v      *ops.Variable
	shards []shard
}

// VariableShard says where one piece of a tracked variable lives.
type VariableShard struct {
	Name  string    // the variable's name, with "/part_<i>" when it is split
	Shape ops.Shape // the shard's shape (rows along axis 0)
	PS    int       // the "ps" task holding it
}

// Track places vars on the parameter servers and gives them their ids: the
// position in the sequence of Track calls, which must be the same on every
// task (each task builds the same model and tracks model.Weights(), say;
// the servers check names and shapes and name the first that differs).
// Each variable, or each of its shards under [VariablePartitioner], goes to
// the next server round-robin. On the chief Track also initialises the
// servers with the variables' current values (the chief's initial or
// restored weights). Tracking a variable twice does nothing.
//
// Track only the model's variables: an optimizer's slots and step count
// live on the servers, inside each server's own optimizer. Variables must
// be built (a model called or built once) before they are tracked.
func (s *ParameterServerStrategy) Track(vars ...*ops.Variable) error {
	s.mu.Lock()
	var added []*trackedVar
	for i, v := range vars {
		if v == nil {
			s.mu.Unlock()
			return fmt.Errorf("distribute: ParameterServerStrategy.Track: variable %d is nil", i)
		}
		if _, ok := s.byV[v]; ok {
			continue
		}
		tv := &trackedVar{v: v}
		shape := v.Shape()
		n := 1
		if s.cfg.partitioner != nil && len(shape) > 0 {
			n = max(1, min(s.cfg.partitioner.NumShards(shape, 4), shape[0]))
		}
		row, rowSize := 0, 1
		if len(shape) > 0 && shape[0] > 0 {
			rowSize = shape.Size() / shape[0]
		}
		rows := []int{0}
		if len(shape) > 0 {
			rows = shardRows(shape[0], n)
		}
		for j, r := range rows {
			sh := shard{id: s.nIDs, ps: s.next % len(s.spec["ps"]), name: v.Name(), shape: shape.Clone()}
			if n > 1 {
				sh.name = fmt.Sprintf("%s/part_%d", v.Name(), j)
				sh.shape[0] = r
			}
			sh.off, sh.size = row*rowSize, sh.shape.Size()
			row += r
			s.nIDs++
			s.next++
			tv.shards = append(tv.shards, sh)
		}
		s.vars = append(s.vars, tv)
		s.byV[v] = tv
		added = append(added, tv)
	}
	s.mu.Unlock()
	if s.taskType != "chief" || len(added) == 0 {
		return nil
	}
	return s.initServers(added)
}

// Shards returns where v's pieces live, or nil if v is not tracked.
func (s *ParameterServerStrategy) Shards(v *ops.Variable) []VariableShard {
	s.mu.Lock()
	defer s.mu.Unlock()
	tv := s.byV[v]
	if tv == nil {
		return nil
	}
	out := make([]VariableShard, len(tv.shards))
	for i, sh := range tv.shards {
		out[i] = VariableShard{Name: sh.name, Shape: sh.shape.Clone(), PS: sh.ps}
	}
	return out
}

// TrackedVariables returns the tracked variables in id order.
func (s *ParameterServerStrategy) TrackedVariables() []*ops.Variable {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*ops.Variable, len(s.vars))
	for i, tv := range s.vars {
		out[i] = tv.v
	}
	return out
}

func specOf(sh shard, tv *trackedVar, value []float32) *psrpc.VarSpec {
	shape := make([]int64, len(sh.shape))
	for i, d := range sh.shape {
		shape[i] = int64(d)
	}
	vs := &psrpc.VarSpec{Id: sh.id, Name: sh.name, Shape: shape, Trainable: tv.v.Trainable()}
	if value != nil {
		vs.Value = psrpc.EncodeFloat32s(value[sh.off : sh.off+sh.size])
	}
	return vs
}

// forEachPS runs call for every server that has work, concurrently, and
// joins the errors.
func (s *ParameterServerStrategy) forEachPS(call func(p *psClient) error) error {
	errs := make([]error, len(s.ps))
	var wg sync.WaitGroup
	for i, p := range s.ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = call(p)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *ParameterServerStrategy) rpcContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.cfg.rpcTimeout)
}

func (s *ParameterServerStrategy) initServers(tvs []*trackedVar) error {
	s.chiefWrote()
	reqs := make([]*psrpc.InitRequest, len(s.ps))
	for i := range reqs {
		reqs[i] = &psrpc.InitRequest{}
	}
	for _, tv := range tvs {
		val := tv.v.Numpy()
		for _, sh := range tv.shards {
			reqs[sh.ps].Vars = append(reqs[sh.ps].Vars, specOf(sh, tv, val))
		}
	}
	return s.forEachPS(func(p *psClient) error {
		if len(reqs[p.task].Vars) == 0 {
			return nil
		}
		ctx, cancel := s.rpcContext()
		defer cancel()
		_, err := p.c.Init(ctx, reqs[p.task])
		return s.psErr(p, "initialising its variables", err)
	})
}

// psGone is the error of a parameter server that stopped answering.
type psGone struct {
	name string
	err  error
}

func (e *psGone) Error() string {
	return fmt.Sprintf("distribute: parameter server %s is gone; relaunch the job, it resumes from the last checkpoint (%v)", e.name, e.err)
}
func (e *psGone) Unwrap() error        { return e.err }
func (e *psGone) Is(target error) bool { return target == ErrParameterServerGone }

// psErr wraps an error of a call to p: a lost connection is psGone, any
// other error names the server and what was asked.
func (s *ParameterServerStrategy) psErr(p *psClient, what string, err error) error {
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	if st.Code() == codes.Unavailable {
		return &psGone{name: p.name(), err: err}
	}
	return fmt.Errorf("distribute: parameter server %s: %s: %s", p.name(), what, st.Message())
}

// tracked returns the tracked entries of vars (all when vars is empty).
func (s *ParameterServerStrategy) tracked(what string, vars []*ops.Variable) ([]*trackedVar, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(vars) == 0 {
		return slices.Clone(s.vars), nil
	}
	out := make([]*trackedVar, len(vars))
	for i, v := range vars {
		tv := s.byV[v]
		if tv == nil {
			name := "<nil>"
			if v != nil {
				name = v.Name()
			}
			return nil, fmt.Errorf("distribute: ParameterServerStrategy.%s: variable %q is not on the parameter servers (call Track with the model's variables on every task)", what, name)
		}
		out[i] = tv
	}
	return out, nil
}

// check compares this task's tracked variables with the servers' (each
// once).
func (s *ParameterServerStrategy) check() error {
	s.mu.Lock()
	done := s.checked
	all := slices.Clone(s.vars)
	s.mu.Unlock()
	if done == len(all) || s.taskType == "chief" {
		return nil
	}
	reqs := make([]*psrpc.CheckRequest, len(s.ps))
	for i := range reqs {
		reqs[i] = &psrpc.CheckRequest{}
	}
	for _, tv := range all[done:] {
		for _, sh := range tv.shards {
			reqs[sh.ps].Vars = append(reqs[sh.ps].Vars, specOf(sh, tv, nil))
		}
	}
	err := s.forEachPS(func(p *psClient) error {
		ctx, cancel := s.rpcContext()
		defer cancel()
		_, err := p.c.Check(ctx, reqs[p.task])
		return s.psErr(p, fmt.Sprintf("checking %s:%d's variables", s.taskType, s.taskID), err)
	})
	if err == nil {
		s.mu.Lock()
		s.checked = max(s.checked, len(all))
		s.mu.Unlock()
	}
	return err
}

// pull reads tvs from the servers into the variables.
func (s *ParameterServerStrategy) pull(tvs []*trackedVar) error {
	if len(tvs) == 0 {
		return nil
	}
	if err := s.check(); err != nil {
		return err
	}
	type where struct {
		tv *trackedVar
		sh shard
	}
	reqs := make([]*psrpc.PullRequest, len(s.ps))
	at := make([][]where, len(s.ps))
	for i := range reqs {
		reqs[i] = &psrpc.PullRequest{}
	}
	whole := make(map[*trackedVar][]float32, len(tvs))
	for _, tv := range tvs {
		whole[tv] = make([]float32, tv.v.Shape().Size())
		for _, sh := range tv.shards {
			reqs[sh.ps].Ids = append(reqs[sh.ps].Ids, sh.id)
			at[sh.ps] = append(at[sh.ps], where{tv, sh})
		}
	}
	err := s.forEachPS(func(p *psClient) error {
		if len(reqs[p.task].Ids) == 0 {
			return nil
		}
		ctx, cancel := s.rpcContext()
		defer cancel()
		resp, err := p.c.Pull(ctx, reqs[p.task])
		if err != nil {
			return s.psErr(p, "pulling variables", err)
		}
		if len(resp.Values) != len(at[p.task]) {
			return fmt.Errorf("distribute: parameter server %s answered %d values for %d variables", p.name(), len(resp.Values), len(at[p.task]))
		}
		for i, w := range at[p.task] {
			if err := psrpc.DecodeFloat32sInto(whole[w.tv][w.sh.off:w.sh.off+w.sh.size], resp.Values[i], "distribute: value of "+w.sh.name+" from "+p.name()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for tv, val := range whole {
		if err := tv.v.Assign(val); err != nil {
			return err
		}
	}
	return nil
}

// PullVariables writes the servers' current values into vars (every
// tracked variable when none are given), joining the shards of a
// partitioned one: what the chief does before it saves a checkpoint,
// evaluates, or runs callbacks that read the weights.
func (s *ParameterServerStrategy) PullVariables(vars ...*ops.Variable) error {
	if s.taskType == "ps" {
		return fmt.Errorf("distribute: ParameterServerStrategy.PullVariables: ps:%d holds the variables; pull from the chief or a worker", s.taskID)
	}
	tvs, err := s.tracked("PullVariables", vars)
	if err != nil {
		return err
	}
	return s.pull(tvs)
}

// PushVariables assigns vars' values (every tracked variable when none are
// given) on the servers, splitting partitioned ones: what the chief does
// after restoring a checkpoint into its model.
func (s *ParameterServerStrategy) PushVariables(vars ...*ops.Variable) error {
	if s.taskType == "ps" {
		return fmt.Errorf("distribute: ParameterServerStrategy.PushVariables: ps:%d holds the variables; push from the chief or a worker", s.taskID)
	}
	tvs, err := s.tracked("PushVariables", vars)
	if err != nil {
		return err
	}
	return s.assign(tvs)
}

func (s *ParameterServerStrategy) assign(tvs []*trackedVar) error {
	if len(tvs) == 0 {
		return nil
	}
	if slices.ContainsFunc(tvs, func(tv *trackedVar) bool { return tv.v.Trainable() }) {
		s.chiefWrote()
	}
	reqs := make([]*psrpc.AssignRequest, len(s.ps))
	for i := range reqs {
		reqs[i] = &psrpc.AssignRequest{}
	}
	for _, tv := range tvs {
		val := tv.v.Numpy()
		for _, sh := range tv.shards {
			reqs[sh.ps].Ids = append(reqs[sh.ps].Ids, sh.id)
			reqs[sh.ps].Values = append(reqs[sh.ps].Values, psrpc.EncodeFloat32s(val[sh.off:sh.off+sh.size]))
		}
	}
	return s.forEachPS(func(p *psClient) error {
		if len(reqs[p.task].Ids) == 0 {
			return nil
		}
		ctx, cancel := s.rpcContext()
		defer cancel()
		_, err := p.c.Assign(ctx, reqs[p.task])
		return s.psErr(p, "assigning variables", err)
	})
}

// pullForStep pulls the tracked variables a step needs (see
// RunReplicas: all but the trainable ones the last push refreshed) and
// returns the values of the non-trainable ones, to see later which the
// step changed. The refreshed values serve one step only.
func (s *ParameterServerStrategy) pullForStep() (map[*trackedVar][]float32, error) {
	s.mu.Lock()
	all := slices.Clone(s.vars)
	need := make([]*trackedVar, 0, len(all))
	for _, tv := range all {
		if !tv.v.Trainable() || !s.fresh[tv] {
			need = append(need, tv)
		}
	}
	clear(s.fresh)
	s.mu.Unlock()
	if err := s.pull(need); err != nil {
		return nil, err
	}
	before := map[*trackedVar][]float32{}
	for _, tv := range all {
		if !tv.v.Trainable() {
			before[tv] = tv.v.Numpy()
		}
	}
	return before, nil
}

// assignChanged assigns on the servers the non-trainable variables whose
// value differs from before.
func (s *ParameterServerStrategy) assignChanged(before map[*trackedVar][]float32) error {
	var changed []*trackedVar
	for tv, old := range before {
		if !slices.Equal(old, tv.v.Data(0)) {
			changed = append(changed, tv)
		}
	}
	return s.assign(changed)
}

// psContext is the replica context of a step under the strategy.
type psContext struct{ s *ParameterServerStrategy }

func (c *psContext) ReplicaID() int   { return 0 }
func (c *psContext) NumReplicas() int { return 1 }

// AllReduceSum is the identity: a worker is one replica, and workers do
// not reduce with each other.
func (c *psContext) AllReduceSum([][]float32) error { return nil }

// PushGradients implements ops.ParameterServerContext.
func (c *psContext) PushGradients(optimizer any, vars []*ops.Variable, grads [][]float32) error {
	return c.s.pushGradients(optimizer, vars, grads)
}

func optimizerJSON(optimizer any) (string, error) {
	opt, ok := optimizer.(optimizers.Optimizer)
	if !ok {
		return "", fmt.Errorf("distribute: ParameterServerStrategy: cannot describe optimizer %T to the parameter servers (want a keras/optimizers Optimizer)", optimizer)
	}
	b, err := json.Marshal(keras.OptimizerConfig(opt))
	if err != nil {
		return "", fmt.Errorf("distribute: ParameterServerStrategy: optimizer %s's config: %w", opt.Name(), err)
	}
	return string(b), nil
}

func (s *ParameterServerStrategy) pushGradients(optimizer any, vars []*ops.Variable, grads [][]float32) error {
	if len(vars) != len(grads) {
		return fmt.Errorf("distribute: ParameterServerStrategy: %d gradients for %d variables", len(grads), len(vars))
	}
	cfg, err := optimizerJSON(optimizer)
	if err != nil {
		return err
	}
	tvs, err := s.tracked("PushGradients", vars)
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	type where struct {
		i  int
		sh shard
	}
	worker := int32(s.taskID)
	if s.taskType == "chief" {
		worker = -1
	}
	reqs := make([]*psrpc.PushRequest, len(s.ps))
	at := make([][]where, len(s.ps))
	for i := range reqs {
		reqs[i] = &psrpc.PushRequest{Worker: worker, Optimizer: cfg}
	}
	whole := make([][]float32, len(vars))
	for i, tv := range tvs {
		if len(grads[i]) != tv.v.Shape().Size() {
			return fmt.Errorf("distribute: ParameterServerStrategy: gradient of %q has %d values, want %d", tv.v.Name(), len(grads[i]), tv.v.Shape().Size())
		}
		whole[i] = make([]float32, len(grads[i]))
		for _, sh := range tv.shards {
			reqs[sh.ps].Ids = append(reqs[sh.ps].Ids, sh.id)
			reqs[sh.ps].Grads = append(reqs[sh.ps].Grads, psrpc.EncodeFloat32s(grads[i][sh.off:sh.off+sh.size]))
			at[sh.ps] = append(at[sh.ps], where{i, sh})
		}
	}
	err = s.forEachPS(func(p *psClient) error {
		if len(reqs[p.task].Ids) == 0 {
			return nil
		}
		ctx, cancel := s.rpcContext()
		defer cancel()
		resp, err := p.c.Push(ctx, reqs[p.task])
		if err != nil {
			return s.psErr(p, "pushing gradients", err)
		}
		if len(resp.Values) != len(at[p.task]) {
			return fmt.Errorf("distribute: parameter server %s answered %d values for %d variables", p.name(), len(resp.Values), len(at[p.task]))
		}
		for k, w := range at[p.task] {
			if err := psrpc.DecodeFloat32sInto(whole[w.i][w.sh.off:w.sh.off+w.sh.size], resp.Values[k], "distribute: value of "+w.sh.name+" from "+p.name()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, tv := range tvs {
		if err := tv.v.Assign(whole[i]); err != nil {
			return err
		}
	}
	// Every shard of each variable came back: the next step may use them.
	s.mu.Lock()
	for _, tv := range tvs {
		s.fresh[tv] = true
	}
	s.mu.Unlock()
	return nil
}
