package engine

// A variable whose copy for the running replica has no storage (a
// weight a distribution keeps as its devices' shards,
// ops.Variable.SetBacking) is lent to each step that reads it, whole, and
// given back when the step is done: a device then holds a split weight
// whole only while one kernel reads it, not for the whole run. A weight
// read by several steps (a product forward, its transpose backward) is
// read once per step.

// setLazy records whether variable i is lent this run.
func (p *Program) setLazy(i int, lazy bool) {
	if p.lazy == nil {
		p.lazy = make([]bool, len(p.vars))
		p.varAt = make([]int, len(p.bufs))
		for b := range p.varAt {
			p.varAt[b] = -1
		}
		for j, b := range p.varBufs {
			p.varAt[b] = j
		}
	}
	p.lazy[i] = lazy
}

// lend binds, for one step, every lazy variable among the buffers ins
// that is not bound yet, and returns their indices (nil for none).
func (p *Program) lend(ins []int, replica int) []int {
	var lent []int
	for _, b := range ins {
		i := p.varAt[b]
		if i < 0 || !p.lazy[i] || p.bufs[b] != nil {
			continue
		}
		buf, borrowed := p.vars[i].LendCopy(replica)
		p.bufs[b] = buf
		if borrowed {
			lent = append(lent, i)
		} else {
			lent = append(lent, -1-i) // storage of its own: only unbound after
		}
	}
	return lent
}

// giveBack ends a step's loans.
func (p *Program) giveBack(lent []int, replica int) {
	for _, i := range lent {
		if i < 0 {
			p.bufs[p.varBufs[-1-i]] = nil
			continue
		}
		b := p.varBufs[i]
		p.vars[i].ReturnCopy(replica, p.bufs[b])
		p.bufs[b] = nil
	}
}
