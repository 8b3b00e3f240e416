package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
)

// Gradients returns d loss / d v for each variable, built symbolically into
// loss's trace by gorgonia's differentiation. loss must be a scalar. A
// variable the loss does not depend on (or that the trace never read) gets a
// none Tensor, as tf.GradientTape returns None.
//
// gorgonia caches derivatives on nodes: a second call in a trace works when
// no node between its variables and its loss was differentiated before
// (two tapes over separate computations, as a GAN's two steps), and is an
// error otherwise; then ask for every variable in one call.
func Gradients(loss Tensor, vars []*Variable) (grads []Tensor, err error) {
	if loss.n == nil {
		return nil, fmt.Errorf("ops: Gradients: none loss")
	}
	if len(loss.Shape()) != 0 {
		return nil, fmt.Errorf("ops: Gradients: loss must be a scalar, got shape %v (reduce it first)", loss.Shape())
	}
	tr := loss.tr
	reach := ancestors(tr, loss.n)
	var wrt []*gorgonia.Node
	idx := make([]int, len(vars))
	for i, v := range vars {
		idx[i] = -1
		n := tr.vars[v]
		if n == nil || !reach[n] {
			continue
		}
		idx[i] = len(wrt)
		wrt = append(wrt, n)
	}
	if tr.differed && derivedBefore(tr, reach, wrt) {
		return nil, fmt.Errorf("ops: Gradients: part of this loss's graph was differentiated by an earlier call in this trace; ask for all variables in one call")
	}
	tr.differed = true
	grads = make([]Tensor, len(vars))
	if len(wrt) == 0 {
		return grads, nil
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	gn, err := gorgonia.Grad(loss.n, wrt...)
	if err != nil {
		return nil, fmt.Errorf("ops: Gradients: %w", err)
	}
	for i := range vars {
		if idx[i] >= 0 {
			grads[i] = tr.wrap(gn[idx[i]])
		}
	}
	return grads, nil
}

// ancestors returns the nodes loss depends on through differentiable edges.
func ancestors(tr *Trace, root *gorgonia.Node) map[*gorgonia.Node]bool {
	seen := map[*gorgonia.Node]bool{}
	stack := []*gorgonia.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		op, ok := n.Op().(*Op)
		if !ok {
			continue
		}
		for i, c := range Children(tr.g, n) {
			if op.wrt[i] {
				stack = append(stack, c)
			}
		}
	}
	return seen
}

// Children returns n's inputs in order.
func Children(g *gorgonia.ExprGraph, n *gorgonia.Node) []*gorgonia.Node {
	it := g.From(n.ID())
	if it == nil {
		return nil
	}
	var out []*gorgonia.Node
	for it.Next() {
		out = append(out, it.Node().(*gorgonia.Node))
	}
	return out
}
