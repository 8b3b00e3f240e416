package ops

import "gorgonia.org/gorgonia"

// derivedBefore reports whether a node on a differentiable path from wrt
// to the loss (reach: the loss's differentiable ancestors) already holds a
// derivative from an earlier Gradients call of the trace. gorgonia caches
// derivatives on nodes and would reuse that one, of the other loss, so
// such a second call must be refused; a second call whose paths are all
// new (a GAN's generator step after its discriminator step) is exact.
func derivedBefore(tr *Trace, reach map[*gorgonia.Node]bool, wrt []*gorgonia.Node) bool {
	affected := make(map[*gorgonia.Node]bool, len(reach))
	for _, w := range wrt {
		affected[w] = true
	}
	done := map[*gorgonia.Node]bool{}
	var visit func(n *gorgonia.Node) bool
	visit = func(n *gorgonia.Node) bool {
		if done[n] {
			return affected[n]
		}
		done[n] = true
		if op, ok := n.Op().(*Op); ok {
			for i, c := range Children(tr.g, n) {
				if op.wrt[i] && reach[c] && visit(c) {
					affected[n] = true
				}
			}
		}
		return affected[n]
	}
	for n := range reach {
		if visit(n) && n.Deriv() != nil {
			return true
		}
	}
	return false
}
