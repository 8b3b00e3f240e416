package engine

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gokeras/gokeras/internal/memlimit"
	"github.com/gokeras/gokeras/internal/par"
	"github.com/gokeras/gokeras/internal/vec"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

type stepKind int

const (
	kindOp      stepKind = iota // one of our ops: run its kernel
	kindForeign                 // a gorgonia op: run Do
	kindAdd                     // gorgonia's + of two gradient terms: a vector add
)

type step struct {
	kind  stepKind
	node  *gorgonia.Node
	op    *ops.Op
	out   int   // buffer index
	ins   []int // buffer indices
	shape ops.Shape
	args  [][]float32 // reused argument slice
	// statShapes is the step's operand shapes for EnableOpStatsByShape,
	// made on first use.
	statShapes string
}

// Program is a compiled trace: replay it with [Program.Run]. A Program is
// not safe for concurrent use; each replica owns its own.
//
// Buffers: every node has a buffer index. Placeholders and variables are
// bound to their storage at each Run; constants own theirs. The outputs of
// the steps share a few slabs: a node's buffer lives from the step that
// writes it to the last step that reads it (forever for outputs and hook
// inputs), and a slab is reused by a later node once free (liveness in
// topological order). A view op (a Reshape) runs no kernel: its buffer is
// its input's, and reads of it keep the input's slab alive.
type Program struct {
	trace   *ops.Trace
	bufs    [][]float32
	shapes  []ops.Shape
	steps   []step
	views   []view // rebound at each Run, in order, after inputs and variables
	inputs  []int  // buffer of each placeholder, in trace order
	vars    []*ops.Variable
	varBufs []int
	outputs []int
	hooks   []hookPlan
	// slabFloats is the planned storage in floats (for tests and docs).
	slabFloats int
	// lazy: per variable, whether this run lends it per step
	// (program_lend.go); varAt: per buffer, its variable's index or -1.
	lazy  []bool
	varAt []int
	// ready: per step, the hook inputs it computes, reported to the
	// hooks' Ready as soon as it has run (program_ready.go); readyHooks:
	// the hooks that have a Ready.
	ready      [][]readyCall
	readyHooks []int
}

// view makes buffer out share buffer in's storage.
type view struct{ out, in int }

type hookPlan struct {
	hook ops.Hook
	ins  []int
	vals []ops.Value
}

// Compile plans the execution of outputs (and of the trace's hooks).
func Compile(tr *ops.Trace, outputs []ops.Tensor) (*Program, error) {
	g := tr.Graph()
	sorted, err := gorgonia.Sort(g)
	if err != nil {
		return nil, fmt.Errorf("engine: sort: %w", err)
	}
	slices.Reverse(sorted) // inputs first

	// Only what the outputs and hooks need is run.
	need := map[*gorgonia.Node]bool{}
	var mark func(n *gorgonia.Node)
	mark = func(n *gorgonia.Node) {
		if need[n] {
			return
		}
		need[n] = true
		for _, c := range ops.Children(g, n) {
			mark(c)
		}
	}
	for _, o := range outputs {
		if o.IsNone() {
			return nil, errors.New("engine: none tensor among outputs")
		}
		mark(o.Node())
	}
	for _, h := range tr.Hooks() {
		for _, in := range h.Inputs {
			mark(in.Node())
		}
	}

	p := &Program{trace: tr}
	pinned := map[*gorgonia.Node]bool{} // outputs and hook inputs
	for _, o := range outputs {
		pinned[o.Node()] = true
	}
	for _, h := range tr.Hooks() {
		for _, in := range h.Inputs {
			pinned[in.Node()] = true
		}
	}
	index := map[*gorgonia.Node]int{}
	placeholders := map[*gorgonia.Node]bool{}
	for _, in := range tr.Inputs() {
		placeholders[in.Node()] = true
	}
	varOf := map[*gorgonia.Node]*ops.Variable{}
	for _, v := range tr.Variables() {
		varOf[tr.VariableNode(v)] = v
	}
	// planned[i]: buffer i is a step output whose storage the planner
	// assigns; root[i]: the buffer whose storage buffer i uses (itself, or
	// the source of a view chain); isVar[i]: bound to a variable.
	var planned, isVar []bool
	var root []int
	var sizeErr error // the first shape too large to hold (checkedSize)
	newBuf := func(n *gorgonia.Node, alloc bool) int {
		shape := ops.Shape(n.Shape())
		if n.IsScalar() {
			shape = ops.Shape{}
		}
		i := len(p.bufs)
		var b []float32
		if err := checkedSize(n, shape, alloc); err != nil {
			if sizeErr == nil {
				sizeErr = err
			}
			alloc = false
		}
		if alloc {
			b = make([]float32, shape.Size())
		}
		p.bufs = append(p.bufs, b)
		p.shapes = append(p.shapes, shape)
		planned = append(planned, false)
		isVar = append(isVar, false)
		root = append(root, i)
		index[n] = i
		return i
	}
	for _, n := range sorted {
		if !need[n] {
			continue
		}
		switch op := n.Op().(type) {
		case nil:
			switch {
			case placeholders[n]:
				newBuf(n, false)
			case varOf[n] != nil:
				p.vars = append(p.vars, varOf[n])
				i := newBuf(n, false)
				p.varBufs = append(p.varBufs, i)
				isVar[i] = true
			case tr.ConstantValue(n) != nil:
				i := newBuf(n, true)
				copy(p.bufs[i], tr.ConstantValue(n))
			default:
				return nil, fmt.Errorf("engine: input node %v is neither a placeholder, a variable nor a constant of this trace", n)
			}
		case *ops.Op:
			children := ops.Children(g, n)
			// A view shares its input's storage, except of a variable
			// (variables change in place when the hooks run, after the
			// steps: a copy keeps what the step saw) and when it is itself
			// an output or a hook input (hooks may change their inputs in
			// place, such as an all-reduce of gradients, and must not
			// reach another value through an alias).
			if vi, ok := op.ViewOf(); ok && vi < len(children) && !pinned[n] && !isVar[root[index[children[vi]]]] {
				in := index[children[vi]]
				i := newBuf(n, false)
				root[i] = root[in]
				p.views = append(p.views, view{out: i, in: in})
				continue
			}
			st := step{kind: kindOp, node: n, op: op, out: newBuf(n, false), shape: op.OutputShape()}
			planned[st.out] = true
			for _, c := range children {
				st.ins = append(st.ins, index[c])
			}
			st.args = make([][]float32, len(st.ins))
			p.steps = append(p.steps, st)
		default:
			children := ops.Children(g, n)
			if len(children) == 0 {
				// A gorgonia constant, such as the 1 that seeds Grad.
				v, err := op.Do()
				if err != nil {
					return nil, fmt.Errorf("engine: constant %v: %w", n, err)
				}
				f, err := floatsOf(v)
				if err != nil {
					return nil, fmt.Errorf("engine: constant %v: %w", n, err)
				}
				i := newBuf(n, true)
				copy(p.bufs[i], f)
				continue
			}
			st := step{kind: kindForeign, node: n, out: newBuf(n, false)}
			planned[st.out] = true
			st.shape = p.shapes[st.out]
			for _, c := range children {
				st.ins = append(st.ins, index[c])
			}
			// The additions that sum a node's gradient terms (gorgonia's
			// elementwise +, printed "+ false") get a vector loop.
			if name := op.String(); (name == "+" || strings.HasPrefix(name, "+ ")) && len(st.ins) == 2 &&
				p.shapes[st.ins[0]].Size() == st.shape.Size() && p.shapes[st.ins[1]].Size() == st.shape.Size() {
				st.kind = kindAdd
			}
			p.steps = append(p.steps, st)
		}
	}
	for _, in := range tr.Inputs() {
		i, ok := index[in.Node()]
		if !ok {
			i = newBuf(in.Node(), false) // unused placeholder: accept and ignore
		}
		p.inputs = append(p.inputs, i)
	}
	for _, o := range outputs {
		p.outputs = append(p.outputs, index[o.Node()])
	}
	for _, h := range tr.Hooks() {
		hp := hookPlan{hook: h, vals: make([]ops.Value, len(h.Inputs))}
		for _, in := range h.Inputs {
			hp.ins = append(hp.ins, index[in.Node()])
		}
		p.hooks = append(p.hooks, hp)
	}
	if sizeErr != nil {
		return nil, sizeErr
	}
	if err := p.planBuffers(planned, root); err != nil {
		return nil, err
	}
	p.planReady()
	return p, nil
}

// checkedSize refuses a node whose shape's size overflows, and a constant
// (alloc) the process has no memory left for.
func checkedSize(n *gorgonia.Node, shape ops.Shape, alloc bool) error {
	b := memlimit.Bytes(4, shape...)
	if b == math.MaxUint64 || b/4 > math.MaxInt {
		return fmt.Errorf("engine: node %v of shape %v: more values than an int can count", n, shape)
	}
	if alloc {
		if err := memlimit.Check(fmt.Sprintf("engine: constant %v of shape %v", n, shape), b); err != nil {
			return err
		}
	}
	return nil
}

// planBuffers assigns storage to the step outputs: a buffer's slab is
// taken when its step runs and released after the last step that reads it
// (or a view of it); outputs and hook inputs are never released. A step
// never gets a slab released by its own inputs, so no kernel writes
// storage it reads, except an op that computes in place (Op.InPlaceOf,
// the precision casts): when it is the last reader of that input, a step
// output of the same size, its output takes over the input's slab (no
// new buffer to fill, the pass stays on memory already in cache).
//
// The slabs are planned first and allocated once their total is known:
// a program needing more memory than the process can take is an error,
// not a fatal out of memory halfway.
func (p *Program) planBuffers(planned []bool, root []int) error {
	const forever = int(^uint(0) >> 1)
	last := make([]int, len(p.bufs)) // last step reading each root, -1 if none
	for i := range last {
		last[i] = -1
	}
	for si, st := range p.steps {
		for _, b := range st.ins {
			last[root[b]] = max(last[root[b]], si)
		}
	}
	for _, b := range p.outputs {
		last[root[b]] = forever
	}
	for _, h := range p.hooks {
		for _, b := range h.ins {
			last[root[b]] = forever
		}
	}
	releaseAt := map[int][]int{} // step -> roots whose last read it is
	for b, l := range last {
		if planned[b] && root[b] == b && l >= 0 && l != forever {
			releaseAt[l] = append(releaseAt[l], b)
		}
	}
	type slab struct {
		n    int // floats
		data []float32
	}
	var free, all []*slab
	slabOf := map[int]*slab{}
	take := func(n int) *slab {
		best := -1
		for i, s := range free {
			if s.n >= n && (best < 0 || s.n < free[best].n) {
				best = i
			}
		}
		if best < 0 {
			p.slabFloats += n
			s := &slab{n: n}
			all = append(all, s)
			return s
		}
		s := free[best]
		free = append(free[:best], free[best+1:]...)
		return s
	}
	for si, st := range p.steps {
		n := p.shapes[st.out].Size()
		var s *slab
		if st.kind == kindOp {
			if i, ok := st.op.InPlaceOf(); ok && i < len(st.ins) {
				b := st.ins[i]
				if rel := releaseAt[si]; planned[b] && root[b] == b && last[b] == si && slabOf[b] != nil && p.shapes[b].Size() == n && slices.Contains(rel, b) {
					s = slabOf[b]
					releaseAt[si] = slices.DeleteFunc(slices.Clone(rel), func(x int) bool { return x == b })
				}
			}
		}
		if s == nil {
			s = take(max(n, 1))
		}
		slabOf[st.out] = s
		if last[st.out] < 0 {
			// Nothing reads it (a dead end kept for its side effects):
			// the slab is free again after the step.
			free = append(free, s)
		}
		for _, b := range releaseAt[si] {
			free = append(free, slabOf[b])
		}
	}
	var total uint64
	for _, s := range all {
		total += memlimit.Bytes(4, s.n)
	}
	if err := memlimit.Check(fmt.Sprintf("engine: the buffers of %d steps (%d floats)", len(p.steps), p.slabFloats), total); err != nil {
		return err
	}
	for _, s := range all {
		s.data = make([]float32, s.n)
	}
	for _, st := range p.steps {
		p.bufs[st.out] = slabOf[st.out].data[:p.shapes[st.out].Size()]
	}
	// Views of planned buffers point into their source's slab now; views of
	// placeholders are rebound at each Run.
	for _, v := range p.views {
		if p.bufs[v.in] != nil {
			p.bufs[v.out] = p.bufs[v.in][:p.shapes[v.out].Size()]
		}
	}
	return nil
}

// SlabFloats returns how many floats the program's planned step outputs
// occupy (after buffer reuse).
func (p *Program) SlabFloats() int { return p.slabFloats }

// Trace returns the trace the program was compiled from.
func (p *Program) Trace() *ops.Trace { return p.trace }

// Variables returns the variables the program reads, in the order it binds them.
func (p *Program) Variables() []*ops.Variable { return append([]*ops.Variable(nil), p.vars...) }

// InputShapes returns the shapes Run expects, in order.
func (p *Program) InputShapes() []ops.Shape {
	out := make([]ops.Shape, len(p.inputs))
	for i, b := range p.inputs {
		out[i] = p.shapes[b]
	}
	return out
}

type oneReplica = Single

// Run replays the program on inputs (one per placeholder, shapes as traced;
// the data is read in place, not copied), runs the hooks with rc, and
// returns the outputs. Returned values alias the program's buffers and are
// valid until the next Run.
func (p *Program) Run(rc ops.ReplicaContext, inputs []ops.Value) (outs []ops.Value, err error) {
	if dc, ok := rc.(DeviceContext); ok {
		if x := dc.Executor(); x != nil {
			return x.RunProgram(p, rc, inputs)
		}
	}
	if len(inputs) != len(p.inputs) {
		return nil, fmt.Errorf("engine: %d inputs for a program traced with %d", len(inputs), len(p.inputs))
	}
	for i, in := range inputs {
		b := p.inputs[i]
		if !in.Shape.Equal(p.shapes[b]) || len(in.Data) < p.shapes[b].Size() {
			return nil, fmt.Errorf("engine: input %d has shape %v (%d values), traced with %v", i, in.Shape, len(in.Data), p.shapes[b])
		}
		p.bufs[b] = in.Data[:p.shapes[b].Size()]
	}
	if rc == nil {
		rc = oneReplica{}
	}
	replica := rc.ReplicaID()
	anyLazy := false
	for i, v := range p.vars {
		if replica >= v.Replicas() {
			return nil, fmt.Errorf("engine: variable %q has %d copies, none for replica %d: it was created outside the strategy's scope", v.Name(), v.Replicas(), replica)
		}
		if v.Unbound(replica) {
			p.setLazy(i, true)
			anyLazy = true
			p.bufs[p.varBufs[i]] = nil // lent to each step that reads it
			continue
		}
		if p.lazy != nil {
			p.lazy[i] = false
		}
		p.bufs[p.varBufs[i]] = v.Data(replica)
	}
	for _, v := range p.views {
		p.bufs[v.out] = p.bufs[v.in][:p.shapes[v.out].Size()]
	}
	defer p.releaseVariables()
	p.trace.BindReplicaContext(rc)
	var cur *step
	defer func() {
		if r := recover(); r != nil {
			var e *ops.Error
			if pe, ok := r.(*ops.Error); ok {
				e = pe
			} else if cur != nil {
				e = &ops.Error{Op: cur.node.Op().String(), Msg: fmt.Sprint(r)}
			} else {
				panic(r)
			}
			err = fmt.Errorf("engine: %w", e)
		}
	}()
	timing := opStatsOn.Load()
	var t0 time.Time
	if p.ready != nil {
		if err := p.beginReady(rc); err != nil {
			return nil, err
		}
	}
	for i := range p.steps {
		st := &p.steps[i]
		cur = st
		if timing {
			t0 = time.Now()
		}
		var lent []loan
		rowsOf := -1
		if anyLazy {
			rowsOf = p.rowsTable(st)
			lent = p.lend(st.ins, rowsOf, replica, nil)
		}
		switch st.kind {
		case kindOp:
			for j, b := range st.ins {
				st.args[j] = p.bufs[b]
			}
			if rowsOf >= 0 {
				lent = p.lendRows(st, rowsOf, replica, lent)
			}
			st.op.Forward(p.bufs[st.out], st.args)
		case kindAdd:
			out, a, b := p.bufs[st.out], p.bufs[st.ins[0]], p.bufs[st.ins[1]]
			par.Elems(len(out), func(lo, hi int) { vec.Add(out[lo:hi], a[lo:hi], b[lo:hi]) })
		case kindForeign:
			if err := p.runForeign(st); err != nil {
				return nil, err
			}
		}
		if timing {
			d := time.Since(t0)
			var kind string
			if st.kind == kindOp {
				kind = st.op.Kind()
			} else {
				kind = "gorgonia:" + st.node.Op().String()
			}
			var shapes string
			if opStatsShapes.Load() {
				if st.statShapes == "" {
					st.statShapes = p.shapesOf(st.ins, st.out)
				}
				shapes = st.statShapes
			}
			recordOp(kind, shapes, d)
		}
		if lent != nil {
			p.giveBack(lent, replica)
			clear(st.args)
		}
		if p.ready != nil && p.ready[i] != nil {
			if err := p.signalReady(rc, i); err != nil {
				return nil, err
			}
		}
	}
	cur = nil
	for i := range p.hooks {
		h := &p.hooks[i]
		var lent []loan
		if anyLazy {
			lent = p.lend(h.ins, -1, replica, nil)
		}
		for j, b := range h.ins {
			h.vals[j] = ops.Value{Shape: p.shapes[b], Data: p.bufs[b]}
		}
		if timing {
			t0 = time.Now()
		}
		err := h.hook.Run(rc, h.vals)
		if lent != nil {
			p.giveBack(lent, replica)
		}
		if err != nil {
			return nil, fmt.Errorf("engine: %s: %w", h.hook.Name, err)
		}
		if timing {
			d := time.Since(t0)
			var shapes string
			if opStatsShapes.Load() {
				shapes = p.shapesOf(h.ins, -1)
			}
			recordOp("hook", shapes, d)
		}
	}
	outs = make([]ops.Value, len(p.outputs))
	for i, b := range p.outputs {
		d := p.bufs[b]
		if d == nil && anyLazy && p.varAt[b] >= 0 {
			d = p.vars[p.varAt[b]].Data(replica) // a value of its own
		}
		outs[i] = ops.Value{Shape: p.shapes[b], Data: d}
	}
	return outs, nil
}

// releaseVariables drops the run's references to the variables' storage
// (and views of it, and the kernels' and hooks' arguments), which the next
// run binds again: a copy a variable
// binds for one step (ops.Variable.BindCopy) is then freed when released,
// not kept alive by the program until its next run.
func (p *Program) releaseVariables() {
	for _, b := range p.varBufs {
		p.bufs[b] = nil
	}
	for _, v := range p.views {
		if p.bufs[v.in] == nil {
			p.bufs[v.out] = nil
		}
	}
	for i := range p.steps {
		clear(p.steps[i].args) // set again from bufs before each step runs
	}
	for i := range p.hooks {
		h := &p.hooks[i]
		for j, b := range h.ins {
			if p.bufs[b] == nil {
				h.vals[j].Data = nil
			}
		}
	}
}

// runForeign runs a gorgonia op through its Do (allocating). The only ones
// symbolic differentiation adds to our graphs are the additions that sum a
// node's gradient terms, which run as kindAdd steps instead.
func (p *Program) runForeign(st *step) error {
	out := p.bufs[st.out]
	vals := make([]gorgonia.Value, len(st.ins))
	for j, b := range st.ins {
		sh := p.shapes[b]
		if len(sh) == 0 {
			f := gorgonia.F32(p.bufs[b][0])
			vals[j] = &f
		} else {
			vals[j] = tensor.New(tensor.WithShape(sh...), tensor.WithBacking(p.bufs[b]))
		}
	}
	v, err := st.node.Op().Do(vals...)
	if err != nil {
		return fmt.Errorf("engine: %v: %w", st.node.Op(), err)
	}
	f, err := floatsOf(v)
	if err != nil {
		return fmt.Errorf("engine: %v: %w", st.node.Op(), err)
	}
	copy(out, f)
	return nil
}

func floatsOf(v gorgonia.Value) ([]float32, error) {
	switch v := v.(type) {
	case *gorgonia.F32:
		return []float32{float32(*v)}, nil
	case *tensor.Dense:
		switch d := v.Data().(type) {
		case []float32:
			return d, nil
		case float32:
			return []float32{d}, nil
		}
	}
	return nil, fmt.Errorf("not a float32 value: %T", v)
}
