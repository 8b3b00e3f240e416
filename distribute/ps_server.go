package distribute

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// maxServerElements bounds the elements of one variable a server accepts
// (256M float32, the 1 GiB message limit).
const maxServerElements = psrpc.MaxMessageBytes / 4

// psServer is the service of one "ps" task: it holds its shards of the
// variables and its own optimizer, and applies pushes one at a time, in
// arrival order.
type psServer struct {
	psrpc.UnimplementedParameterServerServer
	s    *ParameterServerStrategy
	name string

	mu      sync.Mutex
	vars    map[int64]*ops.Variable
	optCfg  string
	opt     optimizers.Optimizer
	version int64
	// pulled counts the values (float32) this server sent to Pull calls.
	pulled int64
	// nonFinite counts the writes refused for a NaN or an Inf.
	nonFinite atomic.Int64
	// budget bounds the bytes of the answers being built (see ps_limits.go);
	// nil: unbounded (a server made by a test).
	budget *memBudget
}

func newPSServer(s *ParameterServerStrategy) *psServer {
	return &psServer{s: s, name: fmt.Sprintf("ps:%d", s.taskID), vars: map[int64]*ops.Variable{}}
}

func (p *psServer) errorf(c codes.Code, format string, args ...any) error {
	return status.Errorf(c, p.name+": "+format, args...)
}

func shapeOf(spec *psrpc.VarSpec) (ops.Shape, int, error) {
	if len(spec.Shape) > maxVarRank {
		return nil, 0, fmt.Errorf("variable %q: %d dimensions (at most %d)", clip(spec.Name), len(spec.Shape), maxVarRank)
	}
	n, err := psrpc.ShapeSize(spec.Shape, maxServerElements, fmt.Sprintf("variable %q", clip(spec.Name)))
	if err != nil {
		return nil, 0, err
	}
	shape := make(ops.Shape, len(spec.Shape))
	for i, d := range spec.Shape {
		shape[i] = int(d)
	}
	return shape, n, nil
}

func (p *psServer) Init(_ context.Context, req *psrpc.InitRequest) (*psrpc.Empty, error) {
	if len(req.Vars) > maxServerVars {
		return nil, p.errorf(codes.InvalidArgument, "init: %d variables (at most %d)", len(req.Vars), maxServerVars)
	}
	made := make(map[int64]*ops.Variable, len(req.Vars))
	for _, vs := range req.Vars {
		if err := p.checkSpec(vs, "init"); err != nil {
			return nil, err
		}
		if _, dup := made[vs.Id]; dup {
			return nil, p.errorf(codes.InvalidArgument, "init: variable %d given twice", vs.Id)
		}
		shape, n, err := shapeOf(vs)
		if err != nil {
			return nil, p.errorf(codes.InvalidArgument, "init: %v", err)
		}
		if len(vs.Value) != 4*n {
			return nil, p.errorf(codes.InvalidArgument, "init: value of %q: %d bytes for shape %v (%d float32 values)", clip(vs.Name), len(vs.Value), vs.Shape, n)
		}
		val := make([]float32, n)
		if err := psrpc.DecodeFloat32sInto(val, vs.Value, fmt.Sprintf("init: value of %q", clip(vs.Name))); err != nil {
			return nil, p.errorf(codes.InvalidArgument, "%v", err)
		}
		if err := p.refuseNonFinite(val, "init: value", vs.Name); err != nil {
			return nil, err
		}
		made[vs.Id] = ops.NewVariable(vs.Name, shape, val, vs.Trainable)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// A variable is made once per id: initialising it again (a chief
	// restarted against live servers) takes its values only if its name,
	// shape and trainability are the ones the cluster agreed on.
	for _, id := range slices.Sorted(maps.Keys(made)) {
		v := made[id]
		if old, ok := p.vars[id]; ok && (!old.Shape().Equal(v.Shape()) || old.Name() != v.Name() || old.Trainable() != v.Trainable()) {
			return nil, p.errorf(codes.FailedPrecondition, "init: variable %d is %q %v here, not %q %v: a variable is initialised once, with the shape the chief tracked",
				id, old.Name(), old.Shape(), clip(v.Name()), v.Shape())
		}
	}
	if len(p.vars)+len(made) > maxServerVars {
		return nil, p.errorf(codes.ResourceExhausted, "init: %d variables would make more than %d on this server", len(made), maxServerVars)
	}
	for id, v := range made {
		if old, ok := p.vars[id]; ok {
			// Keep the optimizer's slots keyed by the old variable.
			_ = old.Assign(v.Data(0))
			continue
		}
		p.vars[id] = v
	}
	return &psrpc.Empty{}, nil
}

func (p *psServer) Check(_ context.Context, req *psrpc.CheckRequest) (*psrpc.Status, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, vs := range req.Vars {
		if err := p.checkSpec(vs, "check"); err != nil {
			return nil, err
		}
		v, ok := p.vars[vs.Id]
		if !ok {
			return nil, p.errorf(codes.FailedPrecondition, "no variable %d (%q): the chief has not tracked it yet (call Track with the same variables, in the same order, on every task, the chief first)", vs.Id, clip(vs.Name))
		}
		shape, _, err := shapeOf(vs)
		if err != nil {
			return nil, p.errorf(codes.InvalidArgument, "check: %v", err)
		}
		if v.Name() != vs.Name || !v.Shape().Equal(shape) {
			return nil, p.errorf(codes.FailedPrecondition, "variable %d is %q %v on the chief but %q %v on this task: every task must build the same model and Track the same variables in the same order",
				vs.Id, v.Name(), v.Shape(), clip(vs.Name), shape)
		}
	}
	return &psrpc.Status{Initialized: len(p.vars) > 0, Version: p.version}, nil
}

// lookup returns the variables of ids, under p.mu.
func (p *psServer) lookupLocked(ids []int64) ([]*ops.Variable, error) {
	out := make([]*ops.Variable, len(ids))
	for i, id := range ids {
		v, ok := p.vars[id]
		if !ok {
			return nil, p.errorf(codes.FailedPrecondition, "no variable %d: the chief has not tracked it (call Track with the same variables, in the same order, on every task, the chief first)", id)
		}
		out[i] = v
	}
	return out, nil
}

func valuesOf(vars []*ops.Variable) [][]byte {
	out := make([][]byte, len(vars))
	for i, v := range vars {
		out[i] = psrpc.EncodeFloat32s(v.Data(0))
	}
	return out
}

func (p *psServer) Pull(ctx context.Context, req *psrpc.PullRequest) (*psrpc.PullResponse, error) {
	if err := p.checkIDs(req.Ids, "pull"); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	vars, err := p.lookupLocked(req.Ids)
	if err != nil {
		return nil, err
	}
	if err := p.reserveAnswer(ctx, vars, "pull"); err != nil {
		return nil, err
	}
	for _, v := range vars {
		p.pulled += int64(v.Shape().Size())
	}
	return &psrpc.PullResponse{Values: valuesOf(vars), Version: p.version}, nil
}

func (p *psServer) Assign(_ context.Context, req *psrpc.AssignRequest) (*psrpc.Empty, error) {
	if len(req.Ids) != len(req.Values) {
		return nil, p.errorf(codes.InvalidArgument, "assign: %d values for %d variables", len(req.Values), len(req.Ids))
	}
	if err := p.checkIDs(req.Ids, "assign"); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	vars, err := p.lookupLocked(req.Ids)
	if err != nil {
		return nil, err
	}
	vals := make([][]float32, len(vars))
	for i, v := range vars {
		vals[i] = make([]float32, v.Shape().Size())
		if err := psrpc.DecodeFloat32sInto(vals[i], req.Values[i], "assign: value of "+v.Name()); err != nil {
			return nil, p.errorf(codes.InvalidArgument, "%v", err)
		}
		if err := p.refuseNonFinite(vals[i], "assign: value", v.Name()); err != nil {
			return nil, err
		}
	}
	for i, v := range vars {
		_ = v.Assign(vals[i])
	}
	return &psrpc.Empty{}, nil
}

// optimizerLocked returns the optimizer of cfg, building it the first
// time; a later config that differs only in its learning rate (a callback
// changed it) sets the rate, any other change is an error.
func (p *psServer) optimizerLocked(cfg string) (optimizers.Optimizer, error) {
	if cfg == p.optCfg && p.opt != nil {
		return p.opt, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(cfg), &m); err != nil {
		return nil, p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
	}
	if err := checkLearningRate(m); err != nil {
		return nil, p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
	}
	if p.opt == nil {
		opt, err := keras.OptimizerFromConfig(m)
		if err != nil {
			return nil, p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
		}
		p.opt, p.optCfg = opt, cfg
		return opt, nil
	}
	var old map[string]any
	_ = json.Unmarshal([]byte(p.optCfg), &old)
	oc, _ := old["config"].(map[string]any)
	nc, _ := m["config"].(map[string]any)
	lr, isFloat := nc["learning_rate"].(float64)
	if old["class_name"] == m["class_name"] && isFloat && sameExcept(oc, nc, "learning_rate") {
		p.opt.SetLearningRate(lr)
		p.optCfg = cfg
		return p.opt, nil
	}
	return nil, p.errorf(codes.FailedPrecondition, "the optimizer changed from %s to %s; the servers keep the first one's state (only its learning rate may change)", clip(p.optCfg), clip(cfg))
}

// mayChooseOptimizerLocked refuses, under TLS, a push from a worker that
// would choose the servers' optimizer (none is set yet) or replace it by
// another: the chief chooses it (its Fit sets it before any step; a
// custom loop calls SetOptimizerState on the chief), so that a worker's
// certificate, if stolen, cannot install an optimizer of its own (SGD
// with a learning rate of 1e38). Without TLS a server cannot tell who
// calls, and the first push chooses, as TensorFlow's servers do.
func (p *psServer) mayChooseOptimizerLocked(ctx context.Context, cfg string) error {
	if p.s == nil || p.s.tls == nil || p.s.limiter == nil || (cfg == p.optCfg && p.opt != nil) {
		return nil
	}
	if _, task := p.s.limiter.peerOf(ctx); taskTypeOf(task) == "chief" {
		return nil
	}
	if p.opt == nil {
		return p.errorf(codes.FailedPrecondition, "push: the chief has not set the servers' optimizer yet; a worker may not choose it (the chief's Fit sets it before its first step; a custom loop calls SetOptimizer on the chief after Track, before scheduling steps)")
	}
	var old, m map[string]any
	_ = json.Unmarshal([]byte(p.optCfg), &old)
	if err := json.Unmarshal([]byte(cfg), &m); err != nil {
		return p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
	}
	oc, _ := old["config"].(map[string]any)
	nc, _ := m["config"].(map[string]any)
	if old["class_name"] != m["class_name"] || !sameExcept(oc, nc, "learning_rate") {
		return p.errorf(codes.PermissionDenied, "push: a worker may not replace the servers' optimizer %s by %s: the chief chooses it", clip(p.optCfg), clip(cfg))
	}
	return nil
}

func sameExcept(a, b map[string]any, key string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if k == key {
			continue
		}
		x, _ := json.Marshal(v)
		y, _ := json.Marshal(b[k])
		if string(x) != string(y) {
			return false
		}
	}
	return true
}

func (p *psServer) Push(ctx context.Context, req *psrpc.PushRequest) (*psrpc.PullResponse, error) {
	if len(req.Ids) != len(req.Grads) {
		return nil, p.errorf(codes.InvalidArgument, "push: %d gradients for %d variables", len(req.Grads), len(req.Ids))
	}
	if err := p.checkIDs(req.Ids, "push"); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	vars, err := p.lookupLocked(req.Ids)
	if err != nil {
		return nil, err
	}
	grads := make([][]float32, len(vars))
	for i, v := range vars {
		grads[i] = make([]float32, v.Shape().Size())
		if err := psrpc.DecodeFloat32sInto(grads[i], req.Grads[i], "push: gradient of "+v.Name()); err != nil {
			return nil, p.errorf(codes.InvalidArgument, "%v", err)
		}
		if err := p.refuseNonFinite(grads[i], fmt.Sprintf("push: worker:%d's gradient", req.Worker), v.Name()); err != nil {
			return nil, err
		}
	}
	if err := p.reserveAnswer(ctx, vars, "push"); err != nil {
		return nil, err
	}
	if err := p.mayChooseOptimizerLocked(ctx, req.Optimizer); err != nil {
		return nil, err
	}
	opt, err := p.optimizerLocked(req.Optimizer)
	if err != nil {
		return nil, err
	}
	// An update whose result is not finite (a learning rate of 1e38) is
	// undone and refused: the job sees the error instead of training on.
	saved := make([][]float32, len(vars))
	for i, v := range vars {
		saved[i] = v.Numpy()
	}
	if err := opt.Apply(nil, grads, vars); err != nil {
		return nil, p.errorf(codes.InvalidArgument, "applying worker:%d's gradients: %v", req.Worker, err)
	}
	for _, v := range vars {
		if err := p.refuseNonFinite(v.Data(0), fmt.Sprintf("push: worker:%d's update (optimizer %s)", req.Worker, opt.Name()), v.Name()); err != nil {
			for j, w := range vars {
				_ = w.Assign(saved[j])
			}
			return nil, err
		}
	}
	p.version++
	return &psrpc.PullResponse{Values: valuesOf(vars), Version: p.version}, nil
}

// slotVarsLocked maps each slot variable of the optimizer to its server
// variable's id and slot name (the longest variable name that matches).
func (p *psServer) slotVarsLocked() map[*ops.Variable]struct {
	id   int64
	slot string
} {
	out := map[*ops.Variable]struct {
		id   int64
		slot string
	}{}
	if p.opt == nil {
		return out
	}
	ids := make([]int64, 0, len(p.vars))
	for id := range p.vars {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ovs := p.opt.Variables()
	for _, ov := range ovs[min(1, len(ovs)):] {
		best := ""
		for _, id := range ids {
			name := p.vars[id].Name()
			if slot, ok := slotOf(p.opt.Name(), name, ov.Name()); ok && len(name) > len(best) {
				best = name
				out[ov] = struct {
					id   int64
					slot string
				}{id, slot}
			}
		}
	}
	return out
}

func (p *psServer) GetOptimizerState(context.Context, *psrpc.Empty) (*psrpc.OptimizerState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := &psrpc.OptimizerState{Optimizer: p.optCfg}
	if p.opt == nil {
		return st, nil
	}
	st.Iterations = p.opt.Iterations()
	owners := p.slotVarsLocked()
	for _, ov := range p.opt.Variables() {
		if o, ok := owners[ov]; ok {
			st.Slots = append(st.Slots, &psrpc.Slot{VarId: o.id, Slot: o.slot, Value: psrpc.EncodeFloat32s(ov.Data(0))})
		}
	}
	return st, nil
}

func (p *psServer) SetOptimizerState(_ context.Context, st *psrpc.OptimizerState) (*psrpc.Empty, error) {
	if st.Iterations < 0 || st.Iterations > maxIterations {
		return nil, p.errorf(codes.InvalidArgument, "optimizer state: iterations %d out of range [0, %d]", st.Iterations, int64(maxIterations))
	}
	if len(st.Slots) > 8*maxServerVars {
		return nil, p.errorf(codes.InvalidArgument, "optimizer state: %d slots", len(st.Slots))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal([]byte(st.Optimizer), &m); err != nil {
		return nil, p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
	}
	if err := checkLearningRate(m); err != nil {
		return nil, p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
	}
	opt, err := keras.OptimizerFromConfig(m)
	if err != nil {
		return nil, p.errorf(codes.InvalidArgument, "optimizer config: %v", err)
	}
	// Create the slots with a zero step on the trainable variables, then
	// put every value back (as keras' loader does).
	var vars []*ops.Variable
	ids := make([]int64, 0, len(p.vars))
	for id := range p.vars {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if p.vars[id].Trainable() {
			vars = append(vars, p.vars[id])
		}
	}
	if len(vars) > 0 {
		saved := make([][]float32, len(vars))
		grads := make([][]float32, len(vars))
		for i, v := range vars {
			saved[i] = v.Numpy()
			grads[i] = make([]float32, len(saved[i]))
		}
		if err := opt.Apply(nil, grads, vars); err != nil {
			return nil, p.errorf(codes.InvalidArgument, "creating the optimizer's slots: %v", err)
		}
		for i, v := range vars {
			_ = v.Assign(saved[i])
		}
	}
	p.opt, p.optCfg = opt, st.Optimizer
	owners := p.slotVarsLocked()
	find := map[[2]string]*ops.Variable{}
	for ov, o := range owners {
		find[[2]string{fmt.Sprint(o.id), o.slot}] = ov
	}
	for _, ov := range opt.Variables() {
		o, ok := owners[ov]
		switch {
		case !ok:
		case o.slot == "average":
			// use_ema's moving average starts at the weight, as Keras
			// builds it, unless st holds it (a checkpoint of a chief
			// whose optimizer kept none, resumed, must not average
			// from zero).
			_ = ov.Assign(p.vars[o.id].Data(0))
		default:
			_ = ov.Assign(make([]float32, ov.Shape().Size()))
		}
	}
	for _, sl := range st.Slots {
		ov := find[[2]string{fmt.Sprint(sl.VarId), sl.Slot}]
		if ov == nil {
			return nil, p.errorf(codes.InvalidArgument, "optimizer %s has no slot %q for variable %d", opt.Name(), clip(sl.Slot), sl.VarId)
		}
		val := make([]float32, ov.Shape().Size())
		if err := psrpc.DecodeFloat32sInto(val, sl.Value, "slot "+ov.Name()); err != nil {
			return nil, p.errorf(codes.InvalidArgument, "%v", err)
		}
		if err := p.refuseNonFinite(val, "optimizer state: slot", ov.Name()); err != nil {
			return nil, err
		}
		_ = ov.Assign(val)
	}
	if ovs := opt.Variables(); len(ovs) > 0 {
		_ = ovs[0].Assign([]float32{float32(st.Iterations)})
	}
	return &psrpc.Empty{}, nil
}

// FinalizeVariables copies the optimizer's moving averages (use_ema) into
// this server's trainable variables, as Keras' finalize_variable_values.
func (p *psServer) FinalizeVariables(context.Context, *psrpc.Empty) (*psrpc.Empty, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opt == nil {
		return &psrpc.Empty{}, nil
	}
	f, ok := p.opt.(interface{ FinalizeVariableValues([]*ops.Variable) })
	if !ok {
		return &psrpc.Empty{}, nil
	}
	var vars []*ops.Variable
	for _, v := range p.vars {
		if v.Trainable() {
			vars = append(vars, v)
		}
	}
	f.FinalizeVariableValues(vars)
	p.version++
	return &psrpc.Empty{}, nil
}

func (p *psServer) Ping(context.Context, *psrpc.Empty) (*psrpc.Status, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &psrpc.Status{Initialized: len(p.vars) > 0, Version: p.version}, nil
}

func (p *psServer) Shutdown(context.Context, *psrpc.Empty) (*psrpc.Empty, error) {
	// Answer first; Join stops the server.
	go p.s.shutdownLocal()
	return &psrpc.Empty{}, nil
}
