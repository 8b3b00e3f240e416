package ops

import (
	"slices"

	"gorgonia.org/gorgonia"
)

// importNode copies the part of eager trace src's graph that n depends on
// into eager trace tr and returns n's copy. Ops are re-applied with their
// inputs' copies and keep src's values (no kernel runs again); variable
// reads become reads of the same variables in tr, with src's snapshot; a
// node gorgonia added itself (a sum of gradient terms) comes as a
// constant. Copies are remembered, so importing twice copies once.
func (tr *Trace) importNode(src *Trace, n *gorgonia.Node) *gorgonia.Node {
	if m, ok := tr.eager.imported[n]; ok {
		return m
	}
	varOf := make(map[*gorgonia.Node]*Variable, len(src.vars))
	for v, vn := range src.vars {
		varOf[vn] = v
	}
	// Iterative post-order: children are copied before the node.
	type frame struct {
		n    *gorgonia.Node
		kids []*gorgonia.Node
		next int
	}
	stack := []frame{{n: n, kids: Children(src.g, n)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.kids) {
			c := f.kids[f.next]
			f.next++
			if _, ok := tr.eager.imported[c]; !ok {
				stack = append(stack, frame{n: c, kids: Children(src.g, c)})
			}
			continue
		}
		stack = stack[:len(stack)-1]
		if _, ok := tr.eager.imported[f.n]; ok {
			continue // reached twice on the way down
		}
		tr.eager.imported[f.n] = tr.copyNode(src, f.n, f.kids, varOf)
	}
	return tr.eager.imported[n]
}

// copyNode makes the copy of src's node n in tr, its children copied.
func (tr *Trace) copyNode(src *Trace, n *gorgonia.Node, kids []*gorgonia.Node, varOf map[*gorgonia.Node]*Variable) *gorgonia.Node {
	val := src.valueOf(n)
	shape := Shape(n.Shape())
	if n.IsScalar() {
		shape = Shape{}
	}
	switch op := n.Op().(type) {
	case nil:
		if v := varOf[n]; v != nil {
			if m, ok := tr.vars[v]; ok && slices.Equal(tr.eager.vals[m], val) {
				return m
			}
			m := newInputNode(tr.g, tr.uniqueName("var:"+v.name), v.shape)
			if _, ok := tr.vars[v]; !ok {
				tr.varOrder = append(tr.varOrder, v)
				tr.vars[v] = m // a read of another value than tr's own gets no gradient
			}
			tr.eager.vals[m] = val
			return m
		}
		return tr.Constant(shape, val).n
	case *Op:
		o := *op
		o.tr = tr
		nodes := make([]*gorgonia.Node, len(kids))
		for i, c := range kids {
			nodes[i] = tr.eager.imported[c]
		}
		m, err := gorgonia.ApplyOp(&o, nodes...)
		if err != nil {
			fail(op.name, "copying into another eager trace: %v", err)
		}
		if _, ok := tr.eager.vals[m]; !ok {
			tr.eager.vals[m] = val
		}
		return m
	}
	return tr.Constant(shape, val).n
}
