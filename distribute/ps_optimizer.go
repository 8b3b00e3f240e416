package distribute

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/internal/psrpc"
)

// ServerOptimizerState is the state of the servers' optimizer, for
// checkpoints: its config, its step count and its slots, per tracked
// variable (by name) and slot name ("momentum", "m", "v", ...), each the
// whole variable's (the shards of a partitioned one joined).
type ServerOptimizerState struct {
	Optimizer  map[string]any // keras.OptimizerConfig form; nil before any push
	Iterations int64
	Slots      map[string]map[string][]float32
}

// OptimizerState fetches the servers' optimizer state (the largest step
// count of the servers; they count the pushes they received).
func (s *ParameterServerStrategy) OptimizerState() (*ServerOptimizerState, error) {
	if s.taskType == "ps" {
		return nil, fmt.Errorf("distribute: ParameterServerStrategy.OptimizerState: call it on the chief")
	}
	tvs, _ := s.tracked("", nil)
	byID := map[int64]struct {
		tv *trackedVar
		sh shard
	}{}
	for _, tv := range tvs {
		for _, sh := range tv.shards {
			byID[sh.id] = struct {
				tv *trackedVar
				sh shard
			}{tv, sh}
		}
	}
	states := make([]*psrpc.OptimizerState, len(s.ps))
	err := s.forEachPS(func(p *psClient) error {
		ctx, cancel := s.rpcContext()
		defer cancel()
		st, err := p.c.GetOptimizerState(ctx, &psrpc.Empty{})
		states[p.task] = st
		return s.psErr(p, "reading the optimizer's state", err)
	})
	if err != nil {
		return nil, err
	}
	out := &ServerOptimizerState{Slots: map[string]map[string][]float32{}}
	for i, st := range states {
		if st.Optimizer != "" && out.Optimizer == nil {
			if err := json.Unmarshal([]byte(st.Optimizer), &out.Optimizer); err != nil {
				return nil, fmt.Errorf("distribute: optimizer config from %s: %w", s.ps[i].name(), err)
			}
		}
		out.Iterations = max(out.Iterations, st.Iterations)
		for _, sl := range st.Slots {
			w, ok := byID[sl.VarId]
			if !ok {
				return nil, fmt.Errorf("distribute: %s has a slot %q of variable id %d, which this task does not track", s.ps[i].name(), sl.Slot, sl.VarId)
			}
			name := w.tv.v.Name()
			if out.Slots[name] == nil {
				out.Slots[name] = map[string][]float32{}
			}
			buf := out.Slots[name][sl.Slot]
			if buf == nil {
				buf = make([]float32, w.tv.v.Shape().Size())
				out.Slots[name][sl.Slot] = buf
			}
			if err := psrpc.DecodeFloat32sInto(buf[w.sh.off:w.sh.off+w.sh.size], sl.Value, "distribute: slot "+sl.Slot+" of "+w.sh.name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// SetOptimizerState restores the servers' optimizer from st (as
// OptimizerState returned it, or as the chief read it from a checkpoint):
// each server builds the optimizer of st.Optimizer, creates its slots and
// takes st's values and step count. Slots of untracked variables are an
// error.
func (s *ParameterServerStrategy) SetOptimizerState(st *ServerOptimizerState) error {
	if st == nil || st.Optimizer == nil {
		return fmt.Errorf("distribute: ParameterServerStrategy.SetOptimizerState: no optimizer config in the state")
	}
	cfg, err := json.Marshal(st.Optimizer)
	if err != nil {
		return fmt.Errorf("distribute: ParameterServerStrategy.SetOptimizerState: %w", err)
	}
	tvs, _ := s.tracked("", nil)
	byName := map[string]*trackedVar{}
	for _, tv := range tvs {
		byName[tv.v.Name()] = tv
	}
	reqs := make([]*psrpc.OptimizerState, len(s.ps))
	for i := range reqs {
		reqs[i] = &psrpc.OptimizerState{Optimizer: string(cfg), Iterations: st.Iterations}
	}
	for _, name := range sortedKeys(st.Slots) {
		tv := byName[name]
		if tv == nil {
			return fmt.Errorf("distribute: ParameterServerStrategy.SetOptimizerState: slots of variable %q, which is not tracked", name)
		}
		for _, slot := range sortedKeys(st.Slots[name]) {
			val := st.Slots[name][slot]
			if len(val) != tv.v.Shape().Size() {
				return fmt.Errorf("distribute: ParameterServerStrategy.SetOptimizerState: slot %q of %q has %d values, want %d", slot, name, len(val), tv.v.Shape().Size())
			}
			for _, sh := range tv.shards {
				reqs[sh.ps].Slots = append(reqs[sh.ps].Slots, &psrpc.Slot{VarId: sh.id, Slot: slot, Value: psrpc.EncodeFloat32s(val[sh.off : sh.off+sh.size])})
			}
		}
	}
	return s.forEachPS(func(p *psClient) error {
		ctx, cancel := s.rpcContext()
		defer cancel()
		_, err := p.c.SetOptimizerState(ctx, reqs[p.task])
		return s.psErr(p, "restoring the optimizer's state", err)
	})
}

// slotOf splits an optimizer variable's name, "<optimizer>/<slot>/<var>"
// with the variable's "/" written "_", into the slot, given the variable.
func slotOf(optName, varName, slotVar string) (string, bool) {
	suffix := "/" + strings.ReplaceAll(varName, "/", "_")
	prefix := optName + "/"
	if !strings.HasPrefix(slotVar, prefix) || !strings.HasSuffix(slotVar, suffix) || len(slotVar) <= len(prefix)+len(suffix) {
		return "", false
	}
	return slotVar[len(prefix) : len(slotVar)-len(suffix)], true
}
