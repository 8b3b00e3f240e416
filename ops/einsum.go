package ops

import (
	"fmt"
	"slices"
	"strings"
)

// Einsum contracts a and b as the Einstein summation equation says
// (keras.ops.einsum / tf.einsum with two operands), such as "ab,bc->ac" (a
// matrix product), "abc,cd->abd" or "...b,bc->...c". Each operand names its
// axes with letters; a letter in both operands and the output is a batch
// axis, one in both operands only is summed over, one in a single operand
// and the output is kept, one in a single operand only is summed first.
// "..." stands for the axes a does not name (in a and the output; in b
// only for as many axes as in a, the same ones). The output must be given
// (after "->") and name each axis once; an operand may not repeat a
// letter (no diagonals).
//
// It is one batched matrix product between transposes and reshapes
// (BatchMatMul, or MatMul without batch axes), so its gradient is theirs.
func Einsum(equation string, a, b Tensor) Tensor {
	sameTrace("Einsum", a, b)
	e, err := parseEinsum(equation, a.Shape(), b.Shape())
	if err != nil {
		fail("Einsum", "%q with operands %v and %v: %v", equation, a.Shape(), b.Shape(), err)
	}
	return e.apply(a, b)
}

// einsumPlan is a parsed equation with "..." expanded: one label per axis.
type einsumPlan struct {
	a, b, out []rune
	size      map[rune]int
}

// expandEllipsis replaces "..." in term by n fresh labels (which no
// letter can be), returning the labels of each axis.
func expandEllipsis(term string, n int) ([]rune, bool, error) {
	i := strings.Index(term, "...")
	if i < 0 {
		return []rune(term), false, nil
	}
	if strings.Contains(term[i+3:], "...") {
		return nil, false, fmt.Errorf("%q has \"...\" twice", term)
	}
	labels := []rune(term[:i])
	for k := range n {
		labels = append(labels, rune(0x1000+k))
	}
	return append(labels, []rune(term[i+3:])...), true, nil
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

func parseEinsum(eq string, as, bs Shape) (*einsumPlan, error) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, out, ok := strings.Cut(eq, "->")
	if !ok {
		return nil, fmt.Errorf("the output must be given after \"->\"")
	}
	ta, tb, ok := strings.Cut(lhs, ",")
	if !ok || strings.Contains(tb, ",") {
		return nil, fmt.Errorf("want two operands")
	}
	for _, t := range []string{ta, tb, out} {
		for _, r := range strings.ReplaceAll(t, "...", "") {
			if !isLetter(r) {
				return nil, fmt.Errorf("%q is not a letter", r)
			}
		}
	}
	named := func(t string) int { return len(strings.ReplaceAll(t, "...", "")) }
	na := len(as) - named(ta)
	if na < 0 || na > 0 && !strings.Contains(ta, "...") {
		return nil, fmt.Errorf("%q names %d axes of an operand of rank %d", ta, named(ta), len(as))
	}
	p := &einsumPlan{size: map[rune]int{}}
	var err error
	var hasA, hasB, hasOut bool
	if p.a, hasA, err = expandEllipsis(ta, na); err != nil {
		return nil, err
	}
	nb := len(bs) - named(tb)
	if hasB := strings.Contains(tb, "..."); nb < 0 || nb > 0 && !hasB || hasB && nb != na {
		return nil, fmt.Errorf("%q names %d axes of an operand of rank %d (its \"...\" must stand for as many axes as the first operand's)", tb, named(tb), len(bs))
	}
	if p.b, hasB, err = expandEllipsis(tb, nb); err != nil {
		return nil, err
	}
	if p.out, hasOut, err = expandEllipsis(out, na); err != nil {
		return nil, err
	}
	if (hasA || hasB) && !hasOut && na > 0 {
		return nil, fmt.Errorf("the output %q must keep the \"...\" axes", out)
	}
	for _, t := range []struct {
		labels []rune
		shape  Shape
	}{{p.a, as}, {p.b, bs}} {
		for i, r := range t.labels {
			if slices.Index(t.labels, r) != i {
				return nil, fmt.Errorf("an operand names axis %q twice", r)
			}
			d := t.shape[i]
			if s, ok := p.size[r]; ok && s != d {
				return nil, fmt.Errorf("axis %q has %d values in one operand and %d in the other", r, s, d)
			}
			p.size[r] = d
		}
	}
	for i, r := range p.out {
		if slices.Index(p.out, r) != i {
			return nil, fmt.Errorf("the output names axis %q twice", r)
		}
		if _, ok := p.size[r]; !ok {
			return nil, fmt.Errorf("the output's axis %q is in neither operand", r)
		}
	}
	return p, nil
}

// apply computes the contraction: a as (batch, kept, summed) times b as
// (batch, summed, kept), then the output's order.
func (p *einsumPlan) apply(a, b Tensor) Tensor {
	in := func(labels []rune, r rune) bool { return slices.Contains(labels, r) }
	// Axes of one operand alone that the output drops are summed first.
	sumAlone := func(x Tensor, labels, other []rune) (Tensor, []rune) {
		var axes []int
		var kept []rune
		for i, r := range labels {
			if !in(other, r) && !in(p.out, r) {
				axes = append(axes, i)
			} else {
				kept = append(kept, r)
			}
		}
		if len(axes) == 0 {
			return x, labels
		}
		return Sum(x, false, axes...), kept
	}
	a, la := sumAlone(a, p.a, p.b)
	b, lb := sumAlone(b, p.b, p.a)
	var batch, keptA, summed, keptB []rune
	for _, r := range la {
		switch {
		case in(lb, r) && in(p.out, r):
			batch = append(batch, r)
		case in(lb, r):
			summed = append(summed, r)
		default:
			keptA = append(keptA, r)
		}
	}
	for _, r := range lb {
		if !in(la, r) {
			keptB = append(keptB, r)
		}
	}
	size := func(labels []rune) int {
		n := 1
		for _, r := range labels {
			n *= p.size[r]
		}
		return n
	}
	arrange := func(x Tensor, labels []rune, order ...[]rune) Tensor {
		var want []rune
		for _, o := range order {
			want = append(want, o...)
		}
		perm := make([]int, len(want))
		identity := true
		for i, r := range want {
			perm[i] = slices.Index(labels, r)
			identity = identity && perm[i] == i
		}
		if identity {
			return x
		}
		return Transpose(x, perm)
	}
	nb, nka, ns, nkb := size(batch), size(keptA), size(summed), size(keptB)
	a = arrange(a, la, batch, keptA, summed)
	b = arrange(b, lb, batch, summed, keptB)
	var y Tensor
	if len(batch) == 0 {
		y = MatMul(Reshape(a, Shape{nka, ns}), Reshape(b, Shape{ns, nkb}), false, false)
	} else {
		y = BatchMatMul(Reshape(a, Shape{nb, nka, ns}), Reshape(b, Shape{nb, ns, nkb}), false, false)
	}
	labels := append(append(append([]rune(nil), batch...), keptA...), keptB...)
	shape := make(Shape, len(labels))
	for i, r := range labels {
		shape[i] = p.size[r]
	}
	return arrange(Reshape(y, shape), labels, p.out)
}
