package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

type stepKind int

const (
	kindOp      stepKind = iota // one of our ops: run its kernel
	kindForeign                 // a gorgonia op (gradient accumulation): run Do
)

type step struct {
	kind  stepKind
	node  *gorgonia.Node
	op    *ops.Op
	out   int   // buffer index
	ins   []int // buffer indices
	shape ops.Shape
	args  [][]float32 // reused argument slice
}

// Program is a compiled trace: replay it with [Program.Run]. A Program is
// not safe for concurrent use; each replica owns its own.
type Program struct {
	trace   *ops.Trace
	bufs    [][]float32
	shapes  []ops.Shape
	steps   []step
	inputs  []int // buffer of each placeholder, in trace order
	vars    []*ops.Variable
	varBufs []int
	outputs []int
	hooks   []hookPlan
}

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
	index := map[*gorgonia.Node]int{}
	placeholders := map[*gorgonia.Node]bool{}
	for _, in := range tr.Inputs() {
		placeholders[in.Node()] = true
	}
	varOf := map[*gorgonia.Node]*ops.Variable{}
	for _, v := range tr.Variables() {
		varOf[tr.VariableNode(v)] = v
	}
	newBuf := func(n *gorgonia.Node, alloc bool) int {
		shape := ops.Shape(n.Shape())
		if n.IsScalar() {
			shape = ops.Shape{}
		}
		i := len(p.bufs)
		var b []float32
		if alloc {
			b = make([]float32, shape.Size())
		}
		p.bufs = append(p.bufs, b)
		p.shapes = append(p.shapes, shape)
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
				p.varBufs = append(p.varBufs, newBuf(n, false))
			case tr.ConstantValue(n) != nil:
				i := newBuf(n, true)
				copy(p.bufs[i], tr.ConstantValue(n))
			default:
				return nil, fmt.Errorf("engine: input node %v is neither a placeholder, a variable nor a constant of this trace", n)
			}
		case *ops.Op:
			st := step{kind: kindOp, node: n, op: op, out: newBuf(n, true), shape: op.OutputShape()}
			for _, c := range ops.Children(g, n) {
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
			st := step{kind: kindForeign, node: n, out: newBuf(n, true)}
			st.shape = p.shapes[st.out]
			for _, c := range children {
				st.ins = append(st.ins, index[c])
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
	return p, nil
}

// Trace returns the trace the program was compiled from.
func (p *Program) Trace() *ops.Trace { return p.trace }

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
	for i, v := range p.vars {
		if replica >= v.Replicas() {
			return nil, fmt.Errorf("engine: variable %q has %d copies, none for replica %d: it was created outside the strategy's scope", v.Name(), v.Replicas(), replica)
		}
		p.bufs[p.varBufs[i]] = v.Data(replica)
	}
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
	for i := range p.steps {
		st := &p.steps[i]
		cur = st
		switch st.kind {
		case kindOp:
			for j, b := range st.ins {
				st.args[j] = p.bufs[b]
			}
			st.op.Forward(p.bufs[st.out], st.args)
		case kindForeign:
			if err := p.runForeign(st); err != nil {
				return nil, err
			}
		}
	}
	cur = nil
	for i := range p.hooks {
		h := &p.hooks[i]
		for j, b := range h.ins {
			h.vals[j] = ops.Value{Shape: p.shapes[b], Data: p.bufs[b]}
		}
		if err := h.hook.Run(rc, h.vals); err != nil {
			return nil, fmt.Errorf("engine: %s: %w", h.hook.Name, err)
		}
	}
	outs = make([]ops.Value, len(p.outputs))
	for i, b := range p.outputs {
		outs[i] = ops.Value{Shape: p.shapes[b], Data: p.bufs[b]}
	}
	return outs, nil
}

// runForeign runs a gorgonia op. The only ones symbolic differentiation adds
// to our graphs are the additions that sum a node's gradient terms; those get
// a direct loop. Anything else goes through the op's Do (allocating).
func (p *Program) runForeign(st *step) error {
	out := p.bufs[st.out]
	if st.node.Op().String() == "+" && len(st.ins) == 2 &&
		len(p.bufs[st.ins[0]]) == len(out) && len(p.bufs[st.ins[1]]) == len(out) {
		a, b := p.bufs[st.ins[0]], p.bufs[st.ins[1]]
		for i := range out {
			out[i] = a[i] + b[i]
		}
		return nil
	}
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
