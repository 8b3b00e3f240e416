package engine

import "slices"

// A variable whose copy for the running replica has no storage (a
// weight a distribution keeps as its devices' shards,
// ops.Variable.SetBacking) is lent to each step that reads it, whole, and
// given back when the step is done: a device then holds a split weight
// whole only while one kernel reads it, not for the whole run. A weight
// read by several steps (a product forward, its transpose backward) is
// read once per step. A kernel that reads only some rows of a table
// (ops.Op.RowsRead: an embedding's Gather) is lent those rows alone, when
// the backing can read rows (ops.RowReader), with its ids renumbered.

// loan is a value lent to one step: of variable i, in p.bufs (whole) or
// in the step's arguments only (rows); own: the copy's storage, not a
// loan to give back.
type loan struct {
	i     int
	buf   []float32
	own   bool
	whole bool
}

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

// lazyAt returns the variable of buffer b when it is lent this run and
// not bound yet, or -1.
func (p *Program) lazyAt(b int) int {
	if i := p.varAt[b]; i >= 0 && p.lazy[i] && p.bufs[b] == nil {
		return i
	}
	return -1
}

// lend binds, for one step, every lazy variable among the buffers ins
// that is not bound yet, but the one at skip (-1: none), and adds the
// loans to loans.
func (p *Program) lend(ins []int, skip, replica int, loans []loan) []loan {
	for j, b := range ins {
		if j == skip {
			continue
		}
		i := p.lazyAt(b)
		if i < 0 {
			continue
		}
		buf, borrowed := p.vars[i].LendCopy(replica)
		p.bufs[b] = buf
		loans = append(loans, loan{i: i, buf: buf, own: !borrowed, whole: true})
	}
	return loans
}

// rowsTable returns the table input of a step whose kernel reads rows
// (ops.Op.RowsRead) when that table is lent this run, else -1.
func (p *Program) rowsTable(st *step) int {
	if st.kind != kindOp {
		return -1
	}
	t, _, ok := st.op.RowsRead()
	if !ok || t >= len(st.ins) || len(p.shapes[st.ins[t]]) != 2 || p.lazyAt(st.ins[t]) < 0 {
		return -1
	}
	return t
}

// lendRows sets the step's table argument t (st.args holds the other
// arguments) to the rows its ids name, with the ids renumbered, or, when
// an id is out of range (the kernel reports it) or the backing cannot
// read rows, to the whole table.
func (p *Program) lendRows(st *step, t, replica int, loans []loan) []loan {
	_, idsArg, _ := st.op.RowsRead()
	b := st.ins[t]
	i := p.varAt[b]
	rowsN, cols := p.shapes[b][0], p.shapes[b][1]
	ids := st.args[idsArg][:p.shapes[st.out].Size()/max(cols, 1)]
	if rows, renum, ok := compactRows(ids, rowsN); ok {
		if buf, lent := p.vars[i].LendRows(replica, rows); lent {
			st.args[t], st.args[idsArg] = buf, renum
			return append(loans, loan{i: i, buf: buf})
		}
	}
	buf, borrowed := p.vars[i].LendCopy(replica)
	p.bufs[b] = buf
	st.args[t] = buf
	return append(loans, loan{i: i, buf: buf, own: !borrowed, whole: true})
}

// compactRows returns the distinct rows ids name, increasing, and ids
// renumbered into them; ok is false when an id is not a row of a table
// of n rows (as Gather tests it).
func compactRows(ids []float32, n int) (rows []int, renum []float32, ok bool) {
	rows = make([]int, len(ids))
	for k, v := range ids {
		if !(v > -1 && v < float32(n)) {
			return nil, nil, false
		}
		rows[k] = int(v)
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	renum = make([]float32, len(ids))
	for k, v := range ids {
		at, _ := slices.BinarySearch(rows, int(v))
		renum[k] = float32(at)
	}
	return rows, renum, true
}

// giveBack ends a step's loans.
func (p *Program) giveBack(loans []loan, replica int) {
	for _, l := range loans {
		if !l.own {
			p.vars[l.i].ReturnCopy(replica, l.buf)
		}
		if l.whole {
			p.bufs[p.varBufs[l.i]] = nil
		}
	}
}
