package engine

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// readyCall is one report to a hook's Ready: input of hook.
type readyCall struct{ hook, input int }

// planReady finds, for every hook with a Ready function, the step that
// computes each of its inputs, so that Run reports an input right after
// that step instead of after the whole replay: the optimizer's hook can
// then all-reduce the last layers' gradients while the backward pass
// computes the first layers' (ops.OverlapContext). Hook inputs are pinned
// (never views, never reused, never overwritten in place), so a value is
// final once its step has run.
func (p *Program) planReady() {
	has := false
	for _, h := range p.hooks {
		has = has || h.hook.Ready != nil
	}
	if !has {
		return
	}
	writer := make(map[int]int, len(p.steps))
	for si, st := range p.steps {
		writer[st.out] = si
	}
	p.ready = make([][]readyCall, len(p.steps))
	for hi, h := range p.hooks {
		if h.hook.Ready == nil {
			continue
		}
		p.readyHooks = append(p.readyHooks, hi)
		for j, b := range h.ins {
			if si, ok := writer[b]; ok {
				p.ready[si] = append(p.ready[si], readyCall{hook: hi, input: j})
			}
		}
	}
}

// beginReady calls every Ready hook with -1, before the replay's steps.
func (p *Program) beginReady(rc ops.ReplicaContext) error {
	for _, hi := range p.readyHooks {
		h := &p.hooks[hi]
		if err := h.hook.Ready(rc, -1, ops.Value{}); err != nil {
			return fmt.Errorf("engine: %s: %w", h.hook.Name, err)
		}
	}
	return nil
}

// signalReady reports the hook inputs step si computed.
func (p *Program) signalReady(rc ops.ReplicaContext, si int) error {
	for _, c := range p.ready[si] {
		h := &p.hooks[c.hook]
		b := h.ins[c.input]
		if err := h.hook.Ready(rc, c.input, ops.Value{Shape: p.shapes[b], Data: p.bufs[b]}); err != nil {
			return fmt.Errorf("engine: %s: %w", h.hook.Name, err)
		}
	}
	return nil
}
